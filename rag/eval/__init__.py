"""Evaluation: retrieval metrics on labelled queries, QA metrics on gold evidence, and their CLI commands."""
