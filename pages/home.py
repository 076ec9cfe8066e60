"""Home: every conversation with its counts, the backend, what building cost, quick links."""

import streamlit as st

from components import icons, onboarding, overview
from components.services import services
from components.state import current_conv
from components.text import md

svc = services()
st.title("Mnemoscope")
st.caption("Inspect the long-term memory built from multi-session conversations.")

rows = svc.imports.list_conversations()
onboarding.three_steps(rows, current_conv())
if not rows:
    st.info("No conversation imported yet.")
    st.page_link("pages/load.py", label="Load a conversation", icon=icons.PAGE["pages/load.py"])
    st.stop()

overview.totals(rows)
st.subheader("Conversations")
overview.conversation_table(rows)

conv = current_conv()
if conv:
    st.subheader(f"Conversation {md(conv)}")
    overview.build_cost(svc, conv)
    overview.quick_links(conv)
