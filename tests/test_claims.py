"""Splitting a model's answer into claims: sentences, list items, table rows and code blocks, each with the ids it
cites and its span in the answer; lead-ins, headings and "not in your notes" sentences are not claims."""

from __future__ import annotations

from rag.answer.claims import abstains, split


def claims(text):
    return [(c.text, c.cited) for c in split(text).claims]


def test_a_citation_belongs_to_the_sentence_it_ends_before_or_after_the_full_stop():
    text = "Allen had 136 sacks [S1]. He played for Minnesota. [S2] He retired in 2016."
    assert claims(text) == [("Allen had 136 sacks.", ("S1",)), ("He played for Minnesota.", ("S2",)), ("He retired in 2016.", ())]
    spans = [text[c.start : c.end] for c in split(text).claims]
    assert spans == ["Allen had 136 sacks [S1].", "He played for Minnesota. [S2]", "He retired in 2016."]


def test_initials_and_abbreviations_do_not_end_a_claim_in_either_language():
    # One wrong cut makes two claims of one: «Дж.» alone, and «А. Гобсон» judged apart from what is said of him.
    assert claims("«Войну и мир» написал Дж. А. Гобсон [S1]. Это, т. е. роман, издан в 1869 году.") == [
        ("«Войну и мир» написал Дж. А. Гобсон.", ("S1",)),
        ("Это, т. е. роман, издан в 1869 году.", ()),
    ]
    assert claims("It was written by J. A. Hobson [S2]. Use a tool, e.g. SQLite, for this. Dr. Smith agreed.") == [
        ("It was written by J. A. Hobson.", ("S2",)),
        ("Use a tool, e.g. SQLite, for this.", ()),
        ("Dr. Smith agreed.", ()),
    ]


def test_a_citation_opening_a_line_belongs_to_what_follows():
    assert claims("[S2] Билеты стоили 38 000 рублей.\n- [S1] Жильё — 27 000.") == [
        ("Билеты стоили 38 000 рублей.", ("S2",)),
        ("Жильё — 27 000.", ("S1",)),
    ]


def test_list_items_are_claims_and_a_lead_in_is_not():
    assert claims("The steps are:\n\n1. Mix flour and water [S1].\n2. Rest for an hour [S1].\n- Bake at 250 °C") == [
        ("Mix flour and water.", ("S1",)),
        ("Rest for an hour.", ("S1",)),
        ("Bake at 250 °C", ()),
    ]


def test_a_line_of_citations_alone_covers_the_uncited_claims_before_it():
    assert claims("Tickets cost 38 000. Housing 27 000 [S2].\n[S1]") == [("Tickets cost 38 000.", ("S1",)), ("Housing 27 000.", ("S2",))]
    assert claims("Tickets cost 38 000.\n\n[S1][S3]") == [("Tickets cost 38 000.", ("S1", "S3"))]


def test_table_rows_are_claims_read_with_their_header():
    text = "| Item | Cost |\n|---|---|\n| Tickets | 38 000 [S1] |\n| Housing | 27 000 |"
    assert claims(text) == [("Item: Tickets; Cost: 38 000", ("S1",)), ("Item: Housing; Cost: 27 000", ())]


def test_headings_and_markdown_marks_are_not_part_of_a_claim():
    assert claims("## Answer\n\n**Hydration** is *72%* for `white` bread [S1].") == [("Hydration is 72% for `white` bread.", ("S1",))]


def test_a_code_block_is_one_claim():
    (claim,) = split("Set it like this [S1]:\n\n```sql\nPRAGMA busy_timeout = 5000;\n```").claims
    assert claim.code and claim.text == "PRAGMA busy_timeout = 5000;"


def test_saying_the_notes_have_no_answer_is_not_a_claim():
    result = split("Your notes don't say when he retired. В ваших заметках об этом ничего нет.")
    assert result.claims == () and result.abstains
    assert not split("Allen did not play in 2016 [S1].").abstains


def test_abstention_phrases_in_both_languages():
    for sentence in [
        "The sources do not mention Canberra.",
        "There is no information about the price in the notes.",
        "I cannot find this in the sources.",
        "В заметках не указано, когда это было.",
        "Нет информации о цене.",
    ]:
        assert abstains(sentence), sentence
    for sentence in ["He does not mention it to his wife.", "Нет, он не приехал.", "The file was not found on the server."]:
        assert not abstains(sentence), sentence


def test_text_without_letters_or_digits_and_empty_answers_have_no_claims():
    assert split("").claims == () and split("…\n\n---\n").claims == () and split("[S1][S2]").claims == ()
