"""Ask (being written)."""

import streamlit as st

st.title("Ask")
