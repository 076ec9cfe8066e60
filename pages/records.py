"""Records (being written)."""

import streamlit as st

st.title("Records")
