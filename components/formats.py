"""The Load page's format guide: each importable format in two lines, a small example that
imports as shown, and the example as a downloadable template (docs/formats.md has the rules).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import streamlit as st


@dataclass(frozen=True)
class Format:
    key: str  # the importer's format name
    title: str
    what: str
    example: str
    file_name: str
    language: str


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


FORMATS: tuple[Format, ...] = (
    Format("json", "Generic JSON", "One conversation object (or a list of them): speakers, turns with a "
           "session number and time, optional benchmark questions (`qa`).", _json({
               "conversation_id": "trip", "speakers": ["Eve", "Sam"],
               "turns": [
                   {"session": 1, "session_time": "2023-05-01 10:00", "speaker": "Eve",
                    "text": "I booked the train to Paris for next Friday!"},
                   {"session": 1, "speaker": "Sam", "text": "Lucky you. Send pictures."},
                   {"session": 2, "session_time": "2023-05-20 18:30", "speaker": "Eve",
                    "text": "Back from Paris. I loved the Musée d'Orsay.",
                    "image_caption": "a clock window in a museum"},
               ],
               "qa": [{"question": "Which city did Eve travel to?", "answer": "Paris",
                       "evidence": ["D1:1"], "category": 4}],
           }), "template.json", "json"),
    Format("jsonl", "JSON Lines", "One turn per line; `conversation_id`, `session` and `session_time` are "
           "optional (default: the file name, session 1).",
           "\n".join(json.dumps(t, ensure_ascii=False) for t in [
               {"conversation_id": "trip", "session": 1, "session_time": "2023-05-01 10:00",
                "speaker": "Eve", "text": "I booked the train to Paris!"},
               {"conversation_id": "trip", "session": 1, "speaker": "Sam", "text": "Lucky you."},
               {"conversation_id": "trip", "session": 2, "session_time": "2023-05-20 18:30",
                "speaker": "Eve", "text": "Back from Paris."},
           ]) + "\n", "template.jsonl", "json"),
    Format("csv", "CSV", "A header row naming the columns (`speaker` and `text` required), one turn per "
           "row; quoted fields may hold commas.",
           "conversation_id,session,session_time,speaker,text,image_caption\n"
           "trip,1,2023-05-01 10:00,Eve,\"I booked the train to Paris, finally!\",\n"
           "trip,1,2023-05-01 10:00,Sam,Lucky you.,\n"
           "trip,2,2023-05-20 18:30,Eve,,a photo of a train ticket\n", "template.csv", "text"),
    Format("text", "Plain-text transcript", "`Speaker: text` lines; a header line with a date "
           "(`## 2023-05-01`, `=== Session 2 — 20 May 2023 ===`) starts a session.",
           "## 2023-05-01 10:00\n"
           "Eve: I booked the train to Paris for next Friday!\n"
           "Sam: Lucky you. Send pictures.\n\n"
           "=== Session 2 — 20 May 2023 ===\n"
           "Eve: Back from Paris. [image: a clock window in a museum]\n", "template.txt", "text"),
    Format("locomo", "LoCoMo", "The benchmark's layout: `speaker_a`/`speaker_b`, `session_N` lists of turns "
           "with `dia_id`, `session_N_date_time`, and `qa` with evidence turn ids.", _json([{
               "sample_id": "conv-demo",
               "conversation": {
                   "speaker_a": "Ana", "speaker_b": "Ben",
                   "session_1_date_time": "1:56 pm on 8 May, 2023",
                   "session_1": [
                       {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat last Saturday."},
                       {"speaker": "Ben", "dia_id": "D1:2", "text": "Show me!"},
                   ],
               },
               "qa": [{"question": "When did Ana adopt a cat?", "answer": "6 May 2023",
                       "evidence": ["D1:1"], "category": 2}],
           }]), "template_locomo.json", "json"),
    Format("chatgpt", "ChatGPT export", "`conversations.json` from a ChatGPT data export: every chat is a "
           "session (in time order), the branch shown last is imported, tool messages are skipped.", _json([{
               "title": "Paris trip", "create_time": 1682935200.0, "current_node": "m2",
               "mapping": {
                   "root": {"message": None, "parent": None, "children": ["m1"]},
                   "m1": {"message": {"author": {"role": "user"}, "create_time": 1682935200.0,
                                      "content": {"content_type": "text",
                                                  "parts": ["I booked the train to Paris for Friday."]}},
                          "parent": "root", "children": ["m2"]},
                   "m2": {"message": {"author": {"role": "assistant"}, "create_time": 1682935210.0,
                                      "content": {"content_type": "text",
                                                  "parts": ["Great! Do you want museum tips?"]}},
                          "parent": "m1", "children": []},
               },
           }]), "conversations.json", "json"),
    Format("claude", "Claude.ai export", "`conversations.json` from a Claude.ai data export: every chat is "
           "a session (in time order); text blocks are kept, attached files named in the caption.", _json([{
               "uuid": "c-1", "name": "Paris trip", "created_at": "2023-05-01T10:00:00Z",
               "chat_messages": [
                   {"uuid": "m1", "sender": "human", "created_at": "2023-05-01T10:00:00Z",
                    "text": "I booked the train to Paris for Friday.",
                    "content": [{"type": "text", "text": "I booked the train to Paris for Friday."}],
                    "attachments": [], "files": [{"file_name": "ticket.pdf"}]},
                   {"uuid": "m2", "sender": "assistant", "created_at": "2023-05-01T10:00:09Z",
                    "text": "Great! Do you want museum tips?",
                    "content": [{"type": "text", "text": "Great! Do you want museum tips?"}],
                    "attachments": [], "files": []},
               ],
           }]), "conversations.json", "json"),
    Format("realtalk", "REALTALK", "A REALTALK chat as published: `session_N` lists of turns with "
           "`clean_text`, a `date_time` and a `dia_id` (sessions follow its D number), and `qa`.", _json({
               "name": {"speaker_1": "Eve", "speaker_2": "Sam"},
               "session_1": [
                   {"clean_text": "I booked the train to Paris!", "speaker": "Eve",
                    "date_time": "01.05.2023, 10:00:00", "dia_id": "D1:1", "img_url": [], "img_file": []},
                   {"clean_text": "Lucky you. Send pictures.", "speaker": "Sam",
                    "date_time": "01.05.2023, 10:02:30", "dia_id": "D1:2", "img_url": [], "img_file": []},
               ],
               "qa": [{"question": "Which city is Eve going to?", "answer": "Paris",
                       "evidence": ["D1:1"], "category": 1}],
           }), "Chat_1_Eve_Sam.json", "json"),
    Format("beam", "BEAM", "A BEAM chat's `chat.json`: batches of user/assistant messages, each batch a "
           "session. Import its directory by path to read the probing questions beside it.", _json([
               {"batch_number": 1, "time_anchor": None, "turns": [[
                   {"role": "user", "id": 0, "time_anchor": "May-01-2023",
                    "content": "I booked the train to Paris. Which museums should I see? ->-> 1,1"},
                   {"role": "assistant", "id": 1, "content": "The Louvre and the Musée d'Orsay."},
               ]]},
           ]), "chat.json", "json"),
    Format("longmemeval", "LongMemEval", "One item per question: dated haystack sessions of "
           "`role`/`content` turns; turns marked `has_answer` are the evidence.", _json([{
               "question_id": "q-001", "question_type": "single-session-user",
               "question": "What colour is my bike?", "answer": "red",
               "question_date": "2023/05/30 (Tue) 23:40",
               "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/22 (Mon) 18:05"],
               "haystack_sessions": [
                   [{"role": "user", "content": "I need tyre advice."},
                    {"role": "assistant", "content": "Sure, what bike is it?"}],
                   [{"role": "user", "content": "My bike is red.", "has_answer": True}],
               ],
           }]), "template_longmemeval.json", "json"),
)


GUIDE_KEY = "formats_guide"


def guide() -> None:
    """An expander with one tab per format: what it is, an example, a template to download.

    Drawn only while open (a lazy expander): the highlighted examples need the browser's
    syntax highlighter, a large script the page would otherwise load on every visit."""
    with st.expander("File formats, with examples and templates", key=GUIDE_KEY, on_change="rerun") as box:
        if not box.open:
            return
        st.caption("The format is detected from the content. Every example below imports as shown; "
                   "download it as a starting point. The full rules are in docs/formats.md.")
        for tab, fmt in zip(st.tabs([f.title for f in FORMATS]), FORMATS, strict=True):
            with tab:
                st.markdown(fmt.what)
                st.code(fmt.example, language=fmt.language)
                st.download_button(f"Download {fmt.file_name}", fmt.example.encode("utf-8"),
                                   file_name=fmt.file_name, key=f"template:{fmt.key}",
                                   mime="text/plain", on_click="ignore")
