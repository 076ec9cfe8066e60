"""History (being written)."""

import streamlit as st

st.title("History")
