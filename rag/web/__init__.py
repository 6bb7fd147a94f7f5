"""The browser app's library half (no Streamlit here): settings choices, rendering helpers, streaming."""
