"""The leaf core shared by ``offloader`` and ``workspaces``; it imports nothing of ours above it.

* :mod:`~offloader.core.messages`, :mod:`~offloader.core.convert`,
  :mod:`~offloader.core.reshape`: the message model, and reading and writing back each
  framework's shape (one module per shape in :mod:`~offloader.core.shapes`);
* :mod:`~offloader.core.protocol`: the Offloader and Storage protocols;
* :mod:`~offloader.core.backend`: what the top layer relies on from a workspace;
* :mod:`~offloader.core.layout`: file names and record formats of the on-disk layout;
* :mod:`~offloader.core.lineindex`, :mod:`~offloader.core.text`: line indexes, paths,
  globs and RE2 search;
* :mod:`~offloader.core.threads`: worker-thread hops (a pool of the asyncio loop's own
  threads; anyio's elsewhere); :mod:`~offloader.core.strbuf`: an ASCII str's bytes in place;
* :mod:`~offloader.core.naming`, :mod:`~offloader.core.tools`, :mod:`~offloader.core.errors`.
"""
