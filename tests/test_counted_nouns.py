"""What a number counts, as the claim check reads it from the words beside it (rag/answer/counted.counted_nouns)."""

from rag.answer.counted import counted_nouns
from rag.answer.specifics import specifics


def test_the_counted_noun_is_the_last_word_after_an_english_number_and_the_first_after_a_russian_one():
    assert counted_nouns("Jared Allen had 136 career interceptions.") == {"num:136": frozenset({"intercept"})}
    assert "перехват" in counted_nouns("Джаред Аллен набрал 136 перехватов в карьере")["num:136"]
    assert "куст" in counted_nouns("Посадили 24 куста томатов")["num:24"]


def test_units_months_function_words_and_punctuation_say_nothing_of_what_a_number_counts():
    for text in ("The oven reached 27 °C", "It took 8 minutes", "on 12 March 2026", "56.2% of Warsaw", "with 11, while", "650 ₽/month", "20 г соли"):
        assert counted_nouns(text) == {}, text


def test_a_quoted_capitalised_word_first_in_a_sentence_is_a_name():
    assert "Пантеры" in [s.text for s in specifics("«Пантеры» лидировали в команде по сэкам — 11.") if s.soft]
    assert "Пантеры" not in [s.text for s in specifics("Пантеры лидировали в команде по сэкам — 11.") if s.soft]


def test_digits_inside_a_name_are_part_of_the_name_not_a_number():
    # "GPIO34" was read as the number 4 (a number could start inside another), so a claim naming pins was refused
    # as "S1 says 1, not 5"
    numbers = {k for s in specifics("GPIO34 on ADC1, COVID19 and H2O; 4 pins at 3.3 V") for k in s.keys if k.startswith("num:")}
    assert numbers == {"num:4", "num:3.3"}
    assert "GPIO34" in [s.text for s in specifics("GPIO34 on ADC1") if s.soft]
