"""lab.nonprojective: non-projective gold trees and how many of them a parser gets right."""
import json

import pytest

from lab.nonprojective import is_projective, main, nonprojective_counts, read_sentences


@pytest.mark.parametrize("heads", [
    [],
    [0],
    [2, 0, 2],  # the root in the middle, a word on each side
    [0, 1, 1],  # two arcs from the same head share an end: no crossing
    [0, 3, 1],  # 1 -> 3 -> 2: nested arcs
    [2, 3, 0, 3],
])
def test_projective_trees(heads):
    assert is_projective(heads)


def test_a_crossing_pair_of_arcs():
    # root 1; arcs 4 -> 2 and 1 -> 3 cross (1 < 2 < 3 < 4); the root arc crosses nothing
    assert not is_projective([0, 4, 1, 1])


def test_an_arc_over_the_root_word_crosses_the_root_arc():
    # root 2; the arc 3 -> 1 spans word 2, so it crosses the arc 0 -> 2 and nothing else
    assert not is_projective([3, 0, 2])


def conllu(sentences):
    """CoNLL-U text of sentences given as lists of (form, head, deprel), with a comment,
    a multiword-token range and an empty node in the first, which are left out."""
    lines = []
    for number, words in enumerate(sentences, start=1):
        lines.append(f"# sent_id = s{number}")
        for i, (form, head, deprel) in enumerate(words, start=1):
            if number == 1 and i == 1:
                lines.append(f"1-2\t{form}{words[1][0]}\t_\t_\t_\t_\t_\t_\t_\t_")
            lines.append(f"{i}\t{form}\t_\t_\t_\t_\t{head}\t{deprel}\t_\t_")
            if number == 1 and i == 1:
                lines.append("1.1\tghost\t_\t_\t_\t_\t_\t_\t0:root\t_")
        lines.append("")
    return "\n".join(lines) + "\n"


GOLD = [
    [("a", 0, "root"), ("b", 1, "obj")],                                    # projective
    [("c", 0, "root"), ("d", 4, "nmod:poss"), ("e", 1, "obj"), ("f", 1, "obl")],  # crossing pair
    [("g", 3, "nsubj"), ("h", 0, "root"), ("i", 2, "obj")],                 # arc over the root
]


def write(path, sentences):
    path.write_text(conllu(sentences), encoding="utf-8")
    return path


def test_read_sentences_leaves_out_ranges_and_empty_nodes(tmp_path):
    sentences = read_sentences(write(tmp_path / "gold.conllu", GOLD))
    assert [[(w.form, w.head, w.deprel) for w in s.words] for s in sentences] == GOLD
    assert [s.sent_id for s in sentences] == ["s1", "s2", "s3"]


def test_counts_exact_and_head_only_matches(tmp_path):
    gold = write(tmp_path / "gold.conllu", GOLD)
    # a subtype of its own (nmod:tmod for nmod:poss) is still the gold universal relation
    subtype = [GOLD[0], [*GOLD[1][:1], ("d", 4, "nmod:tmod"), *GOLD[1][2:]], GOLD[2]]
    # heads right in sentence 2 with one relation wrong; sentence 3's tree made projective
    heads_only = [GOLD[0], [*GOLD[1][:1], ("d", 4, "amod"), *GOLD[1][2:]],
                  [("g", 2, "nsubj"), ("h", 0, "root"), ("i", 2, "obj")]]
    counts = nonprojective_counts(gold, {
        "gold": gold,
        "subtype": write(tmp_path / "subtype.conllu", subtype),
        "heads": write(tmp_path / "heads.conllu", heads_only)})
    assert counts == {
        "gold": "gold.conllu", "sentences": 3, "nonprojective": 2,
        "systems": {
            "gold": {"file": "gold.conllu", "nonprojective_right": 2,
                     "nonprojective_heads_right": 2, "predicted_nonprojective": 2},
            "subtype": {"file": "subtype.conllu", "nonprojective_right": 2,
                        "nonprojective_heads_right": 2, "predicted_nonprojective": 2},
            "heads": {"file": "heads.conllu", "nonprojective_right": 0,
                      "nonprojective_heads_right": 1, "predicted_nonprojective": 1}}}


def test_other_words_raise_naming_the_file_and_sentence(tmp_path):
    gold = write(tmp_path / "gold.conllu", GOLD)
    retokenised = write(tmp_path / "system.conllu",
                        [GOLD[0], [("cd", 0, "root"), ("e", 1, "obj"), ("f", 1, "obl")], GOLD[2]])
    with pytest.raises(ValueError, match=r"system\.conllu, line \d+: sentence 2 \(s2\) differs "
                                         r"from the gold file .*gold\.conllu.*'cd e f'"):
        nonprojective_counts(gold, {"system": retokenised})


def test_other_sentences_raise_naming_the_file(tmp_path):
    gold = write(tmp_path / "gold.conllu", GOLD)
    fewer = write(tmp_path / "system.conllu", GOLD[:2])
    with pytest.raises(ValueError, match=r"system\.conllu has 2 sentences, the gold file "
                                         r".*gold\.conllu 3"):
        nonprojective_counts(gold, {"system": fewer})


def test_command_line_writes_the_counts_with_file_names(tmp_path, capsys):
    gold = write(tmp_path / "gold.conllu", GOLD)
    output = tmp_path / "metrics" / "nonprojective.json"
    assert main([str(gold), f"self={gold}", "--output", str(output)]) == 0
    counts = json.loads(output.read_text())
    assert counts["gold"] == "gold.conllu" and counts["systems"]["self"]["file"] == "gold.conllu"
    assert json.loads(capsys.readouterr().out) == counts
