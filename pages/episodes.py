"""Episodes (being written)."""

import streamlit as st

st.title("Episodes")
