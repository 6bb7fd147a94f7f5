"""The pages of the Streamlit app (`app.py`): adapters over `rag/`, one file per page, glue in `common.py`."""
