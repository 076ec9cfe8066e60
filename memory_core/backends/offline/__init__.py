"""The offline backend and everything only it uses: local embeddings, spaCy and rules.

    backend        OfflineBackend: the four stages below behind the ``Backend`` contract,
                   with the parse cache shared by segment and extract
    segment        sessions -> episodes (TextTiling over turn embeddings + dialogue rules)
    extract        an episode's turns -> records and event frames (the rule extractor:
                   clauses, propositions, subjects, aliases, properties, frames, drafts,
                   valid_time — when a fact held)
    planner        question -> Plan (rules over the home's vocabulary)
    answering      Plan + buffer -> Answer (candidates from turns and records, composed by
                   compose/constituents, chosen by the fitted answer_model)
    nlp            the spaCy model, loaded once per process

Nothing outside ``memory_core.backends`` (and the evaluation that fits the answer model)
imports these modules: the build and the question pipeline reach them through the backend.
This package's ``__init__`` imports nothing, so importing one module does not load the rest.
"""
