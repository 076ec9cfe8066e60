"""Graphs (being written)."""

import streamlit as st

st.title("Graphs")
