"""`Settings`: every section's settings (rag/config/sections.py) in one flat frozen value, and the sections' tables
of environment variables, ranges and choices merged for the loading and the checks. The one place a setting's
section is joined back into the whole, so that callers read `settings.x` whatever its section.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rag.config import sections as s

OPENAI_ENDPOINT = "https://api.openai.com/v1"  # where a key goes when no OPENAI_BASE_URL is set
CONNECT_TIMEOUT = 2.0  # seconds to open a connection to a model endpoint: a closed or unreachable one fails fast (reads get request_timeout)


# Fields in section order (a dataclass takes its bases' fields from the last base up): index, search, answer, chat,
# memory, app. Only `vault` and `db_path` have no default, and they come first.
@dataclass(frozen=True)
class Settings(s.AppSettings, s.MemorySettings, s.ChatSettings, s.AnswerSettings, s.SearchSettings, s.IndexSettings):
    """Every setting of every section, read flat (`settings.fusion`); made by `load_settings`, changed by `replace`."""

    def __post_init__(self) -> None:
        if self.openai_api_key and self.openai_key_endpoint is None:  # bound once, where the key and its endpoint are read
            object.__setattr__(self, "openai_key_endpoint", self.openai_base_url or OPENAI_ENDPOINT)

    def replace(self, **changes) -> Settings:
        return dataclasses.replace(self, **changes)


ENV = s.INDEX_ENV | s.SEARCH_ENV | s.ANSWER_ENV | s.CHAT_ENV | s.MEMORY_ENV | s.APP_ENV  # variable → setting
# Allowed ranges (inclusive), for the numbers where a wrong value would fail later and far from its cause.
RANGES = s.INDEX_RANGES | s.SEARCH_RANGES | s.ANSWER_RANGES | s.CHAT_RANGES | s.MEMORY_RANGES
CHOICES = s.INDEX_CHOICES | s.SEARCH_CHOICES | s.APP_CHOICES
