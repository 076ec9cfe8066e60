"""Evaluate (being written)."""

import streamlit as st

st.title("Evaluate")
