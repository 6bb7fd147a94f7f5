"""Search: keyword and meaning rankings over the index, fused; language alignment; similar notes. Knows nothing about answers."""
