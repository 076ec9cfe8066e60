"""Settings (being written)."""

import streamlit as st

st.title("Settings")
