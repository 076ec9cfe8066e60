"""Load (being written)."""

import streamlit as st

st.title("Load")
