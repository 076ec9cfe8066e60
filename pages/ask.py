"""Ask: a question, its answer told as a story (support in words, the records that gave it,
the highlighted source turns) and, one toggle away, the full trace as a chain to walk —
plan → requirements → matched records → episodes → highlighted buffer turns. Past questions
reopen from the URL (``/ask?conv=…&trace=<id>``); strategies compare side by side, with what
differs. A question can be asked as of a date (relative dates in it count back from there)."""

from datetime import date

import streamlit as st

from components import agent_calls, compare_view, data, past_questions, story_view, trace_view, warmup
from components.services import call, services, session_services
from components.state import query_param, require_conv, session_settings
from components.text import md

svc = services()
conv = require_conv()
st.title("Ask")
settings = session_settings(svc.settings)
warmup.once_per_session(svc, conv)  # the question index builds while the question is typed
strategies = call(svc.queries.strategies)

with st.form("ask"):
    question = st.text_input("Question", placeholder="e.g. Where did they go on holiday?")
    c = st.columns(3)
    default = settings["strategy"] if settings["strategy"] in strategies else strategies[0]
    strategy = c[0].selectbox("Strategy", strategies, index=strategies.index(default))
    budget = c[1].number_input("Token budget (0 = the strategy's own)", 0, 100_000,
                               int(settings["budget_tokens"] or 0), 100)
    as_of = c[2].date_input("Ask as of", value=None, min_value=date(1900, 1, 1), max_value=date(2200, 1, 1),
                            help="the day the question is asked: 'last week' or 'two months ago' count "
                                 "back from it. Empty: the date of the conversation's last session.")
    asked = st.form_submit_button("Ask", type="primary")
if asked and question.strip():
    with st.spinner("Planning, retrieving, answering…"):
        trace = call(session_services().queries.ask, conv, question, strategy=strategy,
                     budget_tokens=int(budget) or None, now=trace_view.as_of_time(as_of))
    st.query_params["trace"] = trace.id
    st.session_state.pop("compare", None)

trace_id = query_param("trace")
past = call(svc.queries.traces, conv)
past_questions.render(svc, conv, past, expanded=trace_id is None)
agent_calls.render(conv, call(svc.queries.traces, conv, agents=True))  # MCP clients' asks and searches
if trace_id is None:
    st.stop()

trace = call(svc.queries.trace, trace_id)
st.subheader(md(trace.question))
past_questions.gold_answer(svc, conv, trace.question)
agent_calls.handed(svc, conv, trace)
if not trace.client and not story_view.mode():  # a person's question: the story by default
    story_view.render(svc, conv, trace, data.episodes(svc, conv))
    st.stop()  # the full trace and the strategy comparison are one toggle away
trace_view.full(svc, conv, trace, data.episodes(svc, conv))

st.subheader("Compare strategies on this question")
others = st.multiselect("Strategies", strategies, default=[s for s in ("ensimem", "glong", "seem", "bm25")
                                                           if s in strategies])
if st.button("Compare", disabled=not others):
    with st.spinner("Asking with each strategy…"):
        st.session_state["compare"] = {"question": trace.question, "ids": [call(
            session_services().queries.ask, conv, trace.question, strategy=s,
            budget_tokens=trace.budget_tokens, now=trace_view.asked_at(trace)).id for s in others]}
compared = st.session_state.get("compare")
if compared and compared["question"] == trace.question:
    traces = [call(svc.queries.trace, i) for i in compared["ids"]]
    gold = past_questions.gold_item(svc, conv, trace.question)
    compare_view.render(traces, gold.answer if gold else None, past_questions.gold_evidence(svc, conv, gold))
    trace_view.comparison(traces)
