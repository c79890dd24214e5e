// Attention by Hand: point require.js at the widget modules served by this site.
// Loaded after require.js and before embed-amd.js on pages with widgets (nb_ipywidgets_js),
// so that nothing is fetched from a CDN: the widget manager's fonts resolve next to
// embed-amd.js, and anywidget's AMD front end comes from _static/vendor/anywidget/.
(function () {
  "use strict";
  var src = document.currentScript.src;
  var vendor = src.slice(0, src.lastIndexOf("/") + 1) + "vendor/";
  window.__jupyter_widgets_assets_path__ = vendor + "html-manager/dist/";
  window.require.config({
    paths: {
      // embed-amd.js defines both "@jupyter-widgets/html-manager" and ".../dist/libembed-amd";
      // each webpack runtime looks for its fonts (dist/*.woff2) in the folder of its module's
      // URL, so both names must map to a file inside dist/ (the package root gave vendor/,
      // and font 404s whenever that runtime drew first).
      "@jupyter-widgets/html-manager/dist/libembed-amd": vendor + "html-manager/dist/libembed-amd",
      "@jupyter-widgets/html-manager": vendor + "html-manager/dist/index",
      "@jupyter-widgets/base": vendor + "html-manager/dist/base",
      "@jupyter-widgets/controls": vendor + "html-manager/dist/controls",
      anywidget: vendor + "anywidget/index",
    },
  });
})();
