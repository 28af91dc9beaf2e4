"""Integrations with agent frameworks and protocols.

Each submodule imports its framework only when imported itself, so the core
package never needs AgentScope, Strands, deepagents, Pydantic AI, the OpenAI Agents SDK
or MCP installed:

* :mod:`offloader.integrations.agentscope`: workspaces are drop-in ``offloader=``
  objects for AgentScope 2.x; this module adds the workspace tools as AgentScope tools.
* :mod:`offloader.integrations.strands`: a Strands Agents plugin.
* :mod:`offloader.integrations.deepagents`: a LangChain deepagents backend over any workspace.
* :mod:`offloader.integrations.pydantic_ai`: a history processor / capability that offloads
  and compacts before every model request, and the read-back tools as a toolset.
* :mod:`offloader.integrations.openai_agents`: a ``call_model_input_filter`` that offloads
  and compacts Responses-API input items, and the read-back tools as ``FunctionTool`` objects;
  :mod:`offloader.integrations.openai_agents_session`: an append-only ``Session`` in any workspace.
* :mod:`offloader.integrations.mcp`: an MCP server over one workspace (``offload mcp``).
* :mod:`offloader.integrations.plain`: OpenAI/Anthropic tool schemas and a between-turns
  helper for agents written without a framework.
"""
