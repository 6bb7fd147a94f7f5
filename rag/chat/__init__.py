"""The chat model room: everything that speaks to a chat model server, and nothing about notes, sources or claims.

`protocol` is the seam (`ChatModel`, `Message`); `openai_chat` and `ollama_chat` are its two clients; `configured`
makes the one the settings name. `kinds` is the table of server kinds (port, sign, windows, client) that `servers`
walks to find the servers on this machine; `probe` asks a server's own endpoints within a deadline; `timing` keeps
how fast each model reads a prompt; `replies` reads a reply's bytes with bounds; `prompts` fills the prompt files in
`prompts/`. The answer pipeline (rag/answer/) and the memory (rag/memory/) use this room; it uses neither.
"""
