/* A plot drawn smaller than three quarters of its own size (a phone's 358 px column) gets a
   toggle button before it, and the plot a tap, that shows it at its own size in a box of its
   own that scrolls sideways (the caption below stays put); again, it fits the column
   (site/attn_zoom.py). The box exists only while the plot is enlarged, so the page's other
   rules (print's among them) meet the plot where they always did. */
(() => {
  const LIMIT = 0.75;
  const words = window.attnZoomWords || { enlarge: "Enlarge figure" };

  function enlarge(img, button, on) {
    const box = img.parentElement.classList.contains("attn-zoom-box") ? img.parentElement : null;
    if (on && !box) {
      const scroller = document.createElement("div");
      scroller.className = "attn-zoom-box";
      scroller.tabIndex = 0; // a box that scrolls is reached by keyboard too
      scroller.setAttribute("role", "group");
      scroller.setAttribute("aria-label", words.enlarge);
      img.replaceWith(scroller);
      scroller.append(img);
      img.style.width = `${img.naturalWidth}px`;
    } else if (!on && box) {
      box.replaceWith(img);
      img.style.width = "";
    }
    button.setAttribute("aria-pressed", String(on));
  }

  function buttonOf(img) {
    const holder = img.parentElement.classList.contains("attn-zoom-box") ? img.parentElement : img;
    const found = holder.previousElementSibling;
    return found?.classList.contains("attn-zoom-button") ? found : null;
  }

  function addButton(img) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "attn-zoom-button";
    button.textContent = words.enlarge;
    button.setAttribute("aria-pressed", "false");
    const flip = () => enlarge(img, button, button.getAttribute("aria-pressed") !== "true");
    button.addEventListener("click", flip);
    img.addEventListener("click", () => {
      if (!button.hidden) flip();
    });
    img.before(button);
    return button;
  }

  function update() {
    for (const img of document.querySelectorAll(
      "main div.cell_output > img, main div.cell_output > .attn-zoom-box > img",
    )) {
      if (!img.naturalWidth) continue;
      const button = buttonOf(img);
      const enlarged = button?.getAttribute("aria-pressed") === "true";
      const small = !enlarged && img.getBoundingClientRect().width < LIMIT * img.naturalWidth;
      if (small && !button) addButton(img);
      else if (button) button.hidden = !(small || enlarged);
      img.classList.toggle("attn-zoomable", small || enlarged);
    }
  }

  let pending = false;
  function later() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      update();
    });
  }
  window.addEventListener("load", update);
  window.addEventListener("resize", later);
})();
