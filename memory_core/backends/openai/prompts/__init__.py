"""LLM stage prompts, one module per stage.

Each module has a pure message builder (``build_messages``), a pydantic response model (the
shape the model is asked for, tolerant of extra keys and loose types) and a pure converter to
domain objects that validates structure and reports what it fixed or dropped.

    segment   session -> episodes (cover every turn once, in order)
    extract   episode -> records + event frames (evidence inside the episode, grounded entities)
    plan      question -> requirements (each names an entity or property; valid dependencies)
    answer    question + buffer -> answer citing buffer turns
    judge     question + gold + answer -> CORRECT / WRONG
"""
