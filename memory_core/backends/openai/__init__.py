"""The openai backend: every stage asked of an OpenAI-compatible chat endpoint.

    backend        OpenAIBackend: segment, extract, plan, answer and the judge, each a
                   prompt, a cached and accounted call and a parsed, validated reply
    prompts        the prompt per stage and the reply shapes they are parsed into

The endpoint, model names and key come from ``Settings.llm``; calls go through
``memory_core.llm`` (cache, accounting, parsing).
"""
