"""The app's icons: Material Symbols names, drawn with the font Streamlit ships in its own static
files — so they look the same in every browser, offline. (Emoji need an emoji font on the
viewer's machine; without one they are empty boxes.)"""

from __future__ import annotations

PAGE = {
    "pages/home.py": ":material/home:",
    "pages/load.py": ":material/upload_file:",
    "pages/episodes.py": ":material/view_timeline:",
    "pages/records.py": ":material/table_rows:",
    "pages/graphs.py": ":material/hub:",
    "pages/ask.py": ":material/forum:",
    "pages/evaluate.py": ":material/analytics:",
    "pages/history.py": ":material/history:",
    "pages/settings.py": ":material/settings:",
}
BUILD = ":material/construction:"
OFFLINE = ":material/power:"
REMOTE = ":material/cloud:"
