"""Settings for this browser session: backend, endpoint, model, API key (kept in this session only,
never stored), retrieval strategy and budget."""

import streamlit as st

from components.services import services
from components.state import API_KEY, save_session_settings, session_api_key, session_settings
from components.text import md

BACKENDS = ["offline", "openai"]
svc = services()
st.title("Settings")
st.caption("These apply to this browser session only. The defaults come from the environment "
           "(MNEMOSCOPE_BACKEND, OPENAI_BASE_URL, MNEMOSCOPE_MODEL, MNEMOSCOPE_STRATEGY, ...).")
current = session_settings(svc.settings)
strategies = svc.queries.strategies()

with st.form("settings"):
    backend = st.radio("Backend", BACKENDS, index=BACKENDS.index(current["backend"]), horizontal=True,
                       help="offline: no network, no key. openai: any OpenAI-compatible endpoint.")
    base_url = st.text_input("Base URL", current["base_url"], placeholder="https://api.openai.com/v1")
    model = st.text_input("Model", current["model"])
    key = st.text_input("API key", type="password", placeholder="kept in this browser session only",
                        help="Never written to disk, logs or traces; forgotten when the session ends.")
    strategy = st.selectbox("Retrieval strategy", strategies, index=strategies.index(current["strategy"])
                            if current["strategy"] in strategies else 0)
    budget = st.number_input("Token budget (0 = the strategy's own)", 0, 100_000,
                             int(current["budget_tokens"] or 0), 100)
    saved = st.form_submit_button("Save for this session", type="primary")
if saved:
    save_session_settings({"backend": backend, "base_url": base_url.strip(), "model": model.strip(),
                           "strategy": strategy, "budget_tokens": int(budget) or None})
    if key:
        st.session_state[API_KEY] = key
    st.rerun()

if st.button("Forget the API key", disabled=session_api_key() is None):
    st.session_state.pop(API_KEY, None)
    st.rerun()
st.caption(f"Backend **{md(current['backend'])}** · model {md(current['model'] or '-')} · strategy "
           f"{md(current['strategy'])} · budget {current['budget_tokens'] or 'the strategy’s own'} · API key "
           f"{'set for this session' if session_api_key() else 'not set'}")
if current["backend"] == "openai" and not (session_api_key() or svc.settings.llm.api_key):
    st.warning("The openai backend needs an API key (here, or OPENAI_API_KEY in the environment).")
