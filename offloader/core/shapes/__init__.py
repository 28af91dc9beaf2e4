"""One module per framework shape: how each framework spells messages, blocks, media and tool results.

:mod:`offloader.core.convert` reads every shape into the canonical model and
:mod:`offloader.core.reshape` writes edits back in the caller's shape; both
dispatch to these modules. Shapes are recognised structurally: no framework is
imported.

* :mod:`.openai`: OpenAI chat-completions dicts;
* :mod:`.responses`: OpenAI Responses-API items (the OpenAI Agents SDK);
* :mod:`.anthropic`: Anthropic content blocks;
* :mod:`.strands`: Strands content blocks;
* :mod:`.agentscope`: AgentScope 2.x pydantic objects and their dumps;
* :mod:`.pydantic_ai`: Pydantic AI messages and parts.
"""
