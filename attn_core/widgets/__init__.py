"""Interactive figures (anywidget). Imported explicitly: ``from attn_core.widgets import ...``."""
