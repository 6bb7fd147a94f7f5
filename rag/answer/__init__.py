"""Answers: a frozen, fenced context from search hits, a chat model or extractive quotes, every claim checked against its source."""
