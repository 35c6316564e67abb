"""The table reader (pandas underneath): which tokens are missing, decimal
commas, line numbers in its errors, and the same numbers as np.loadtxt on
the bundled benchmark files."""
from __future__ import annotations

import lzma

import numpy as np
import pytest

from conftest import dataset_path
from optimaltrees.data.tables import MISSING, read_table


def _write(path, text):
    path.write_text(text)
    return path


def test_none_is_a_value_and_question_mark_is_missing(tmp_path):
    t = read_table(_write(tmp_path / "a.csv", "credit,y\nnone,0\nall paid,1\nnone,1\n"))
    assert list(t.X["credit"]) == ["none", "all paid", "none"]
    assert "none" not in MISSING and "?" in MISSING and "" in MISSING and "NA" in MISSING
    with pytest.raises(ValueError, match=r"column 'credit' has missing values \(line 3\)"):
        read_table(_write(tmp_path / "b.csv", "credit,y\nnone,0\n?,1\n"))
    # the caller decides: nothing missing, or its own tokens
    t = read_table(tmp_path / "b.csv", missing=[])
    assert list(t.X["credit"]) == ["none", "?"]
    with pytest.raises(ValueError, match=r"missing values \(line 2 and 1 more\)"):
        read_table(tmp_path / "a.csv", missing=["none"])


@pytest.mark.parametrize("token", ["", "?", "NA", "nan", "NaN", "null", "N/A"])
def test_missing_tokens_in_a_numeric_column(tmp_path, token):
    with pytest.raises(ValueError, match=r"column 'b' has missing values \(line 4\)"):
        read_table(_write(tmp_path / "m.csv", f"a,b,y\n1,2,0\n2,3,1\n3,{token},1\n"))


def test_decimal_commas(tmp_path):
    t = read_table(_write(tmp_path / "eu.csv", "w;h;y\n1,5;2;a\n-0,25;3;b\n2;1,0e3;a\n"))
    assert t.X["w"].tolist() == [1.5, -0.25, 2.0] and t.X["h"].tolist() == [2.0, 3.0, 1000.0]
    # text with commas is not a number
    t = read_table(_write(tmp_path / "t.csv", "w;y\n1,5;a\nx, y;b\n"))
    assert t.X["w"].tolist() == ["1,5", "x, y"]
    # comma-separated: a quoted "1,5" is read as a number only when asked
    path = _write(tmp_path / "q.csv", 'w,y\n"1,5",a\n"2,5",b\n')
    assert read_table(path).X["w"].tolist() == ["1,5", "2,5"]
    assert read_table(path, decimal=",").X["w"].tolist() == [1.5, 2.5]
    assert read_table(tmp_path / "eu.csv", decimal=".").X["w"].tolist() == ["1,5", "-0,25", "2"]


def test_line_numbers_count_comments_and_blank_lines(tmp_path):
    text = "# a comment\na,b,y\n\n1,2,0\n   \n \t \n3,4,1\n5,6\n"
    with pytest.raises(ValueError, match=r"line 8: 2 values, but the first line has 3"):
        read_table(_write(tmp_path / "w.csv", text))
    # after the first row a '#' starts a value: a later '#' line is a row (here a short one)
    with pytest.raises(ValueError, match=r"line 4: 1 values, but the first line has 3"):
        read_table(_write(tmp_path / "c.csv", "# c\na,b,y\n1,2,0\n# not a comment\n"))
    with pytest.raises(ValueError, match=r"line 5: 4 values, but the first line has 3"):
        read_table(_write(tmp_path / "x.csv", "a,b,y\n1,2,0\n3,4,1\n\n5,6,7,1\n"))
    with pytest.raises(ValueError, match=r"line 4: 4 values"):     # a trailing separator is a value too
        read_table(_write(tmp_path / "z.csv", "a,b,y\n1,2,0\n3,4,1\n5,6,1,\n"))
    t = read_table(_write(tmp_path / "ok.csv", "# c\n\n# d\na,b,y\n1,2,0\n\n3,4,1\n"))
    assert t.X.shape == (2, 2) and list(t.y) == [0, 1]
    t = read_table(_write(tmp_path / "nohead.csv", "# c\n\n1,2,0\n3,4,1\n"), header=False)
    assert t.X.shape == (2, 2) and list(t.y) == [0, 1]


def test_values_starting_with_a_hash_are_data(tmp_path):
    t = read_table(_write(tmp_path / "h.csv", "colour,n,y\n#ff0000,1,a\n#00ff00,2,b\n#0000ff,3,a\n"))
    assert t.X["colour"].tolist() == ["#ff0000", "#00ff00", "#0000ff"] and list(t.y) == ["a", "b", "a"]


def test_whitespace_lines_are_blank_with_any_separator(tmp_path):
    t = read_table(_write(tmp_path / "t.csv", "a\tb\ty\n1\t2\t0\n \t \n2\t\t1\n"), allow_missing=True)
    assert t.X.shape == (2, 2) and list(t.y) == [0, 1] and np.isnan(t.X["b"].to_numpy()[1])


def test_file_not_in_the_encoding_is_refused_by_line(tmp_path):
    path = tmp_path / "l.csv"
    path.write_bytes("a,y\ncafe,0\ncaf\u00e9,1\ncaf\u00e8,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"line 3: not utf-8 text \(byte 0xe9\)"):
        read_table(path)
    t = read_table(path, encoding="latin-1")
    assert t.X["a"].tolist() == ["cafe", "caf\u00e9", "caf\u00e8"]
    with pytest.raises(ValueError, match="unknown text encoding"):
        read_table(path, encoding="no-such-codec")


@pytest.mark.parametrize("codec, hint", [("utf-16", "UTF-16 byte-order mark: utf-16"),
                                         ("utf-32", "UTF-32 byte-order mark: utf-32"),
                                         ("utf-16-le", "UTF-16 without a mark"),
                                         ("utf-16-be", "UTF-16 without a mark")])
def test_a_utf16_file_is_named_as_such(tmp_path, codec, hint):
    # without a mark, UTF-16 text of ASCII decodes as UTF-8 with zero bytes
    # (it used to fail later as "line 4: 1 values, but the first line has 3")
    path = tmp_path / "u.csv"
    path.write_bytes("a,b,y\n1,2,x\n3,4,z\n".encode(codec))
    with pytest.raises(ValueError, match=f"u.csv, line 1: .*{hint}"):
        read_table(path)
    t = read_table(path, encoding=codec)
    assert t.X.shape == (2, 2) and list(t.y) == ["x", "z"]


def test_separator_that_splits_every_line_alike(tmp_path):
    # no header, ';' separated with decimal commas: the first line has both marks
    t = read_table(_write(tmp_path / "s.csv", "1,5;2;0\n2,25;3;1\n3;1;0\n"))
    assert t.X.to_numpy().tolist() == [[1.5, 2.0], [2.25, 3.0], [3.0, 1.0]] and list(t.y) == [0, 1, 0]
    # a comma file whose text holds a ';' stays comma-separated
    t = read_table(_write(tmp_path / "c.csv", "note,n,y\na;b,1,0\nc,2,1\n"))
    assert t.X["note"].tolist() == ["a;b", "c"]


def test_quoted_line_break_refused_by_line(tmp_path):
    with pytest.raises(ValueError, match=r"line 3: a quoted value spans lines"):
        read_table(_write(tmp_path / "q.csv", 'y,a,b\n0,p,1\n1,"r\ns",2\n0,t,3\n'))
    t = read_table(_write(tmp_path / "ok.csv", 'y,a,b\n0,"p, q",1\n1,"r",2\n'))
    assert t.X["a"].tolist() == ["p, q", "r"]


def test_true_false_stay_words_and_numbers_stay_float(tmp_path):
    t = read_table(_write(tmp_path / "b.csv", "flag,n,y\nTrue,1,yes\nfalse,2,no\n"))
    assert t.X["flag"].tolist() == ["True", "false"] and t.X["n"].dtype == np.float64
    assert list(t.y) == ["yes", "no"]


def test_whitespace_file_with_leading_spaces(tmp_path):
    t = read_table(_write(tmp_path / "w.txt", "  1 0.5   2\n 0 1.5 3\n\n1  2.5 4\n"))
    assert t.label == "x0" and list(t.y) == [1, 0, 1] and t.X.to_numpy().tolist() == [[0.5, 2], [1.5, 3], [2.5, 4]]


def test_id_like_columns(tmp_path):
    rows = "\n".join(f"p{i},{'ab'[i % 2]},{i % 3},{i % 2}" for i in range(40))
    t = read_table(_write(tmp_path / "ids.csv", "name,kind,n,y\n" + rows + "\n"))
    assert t.id_like_columns() == [("name", 40)]          # kind has 2 values, n is a number


@pytest.mark.parametrize("kind, name", [("continuous/train", "page"), ("continuous/train", "magic"),
                                        ("binary", "anneal")])
def test_same_numbers_as_loadtxt(tmp_path, kind, name):
    src = dataset_path(kind, f"{name}.txt")
    path = tmp_path / f"{name}.txt"
    path.write_bytes(lzma.decompress(src.read_bytes()))
    data = np.loadtxt(path)
    t = read_table(path)
    np.testing.assert_array_equal(t.X.to_numpy(), data[:, 1:])
    np.testing.assert_array_equal(t.y, data[:, 0].astype(np.int64))
    assert t.y.dtype == np.int64 and all(t.X[c].dtype == np.float64 for c in t.X.columns)


@pytest.mark.parametrize("name", ["zoo", "monk1", "car"])
def test_csv_files_as_pandas_reads_them(tmp_path, name):
    import pandas as pd

    path = tmp_path / f"{name}.csv"
    path.write_bytes(lzma.decompress(dataset_path("categorical", f"{name}.csv").read_bytes()))
    t = read_table(path)
    ref = pd.read_csv(path, encoding="utf-8-sig")
    assert t.label == ref.columns[-1] and t.feature_names == list(ref.columns[:-1])
    np.testing.assert_array_equal(t.y, ref.iloc[:, -1].to_numpy())
    for c in t.feature_names:
        assert t.X[c].tolist() == ref[c].tolist(), c
    if name == "zoo":     # one row per animal: its name is an identifier, not a feature
        assert t.id_like_columns() == [("animal_name", ref["animal_name"].nunique())]
    else:
        assert t.id_like_columns() == []


def test_empty_cells_are_values_when_empty_is_not_missing(tmp_path):
    t = read_table(_write(tmp_path / "e.csv", "a,b,y\n1,,0\n2,x,1\n3,,1\n"), missing=["?"])
    assert t.X["b"].tolist() == ["", "x", ""]
    with pytest.raises(ValueError, match=r"column 'b' has missing values \(line 3\)"):
        read_table(_write(tmp_path / "f.csv", "a,b,y\n1,,0\n2,?,1\n"), missing=["?"])
    # a short row is still a short row, not an empty last value
    with pytest.raises(ValueError, match=r"line 3: 2 values, but the first line has 3"):
        read_table(_write(tmp_path / "g.csv", "a,b,y\n1,2,0\n3,4\n"), missing=[])


def test_allow_missing_keeps_the_gaps_of_features_but_not_of_labels(tmp_path):
    path = tmp_path / "gaps.csv"
    path.write_text("size,colour,y\n1.5,red,a\n?,blue,b\n2.5,,a\n3,NA,b\n")
    table = read_table(path, allow_missing=True)
    assert np.isnan(table.X["size"].to_numpy()).tolist() == [False, True, False, False]
    assert table.X["colour"].isna().tolist() == [False, False, True, True]
    assert table.X["colour"].tolist()[:2] == ["red", "blue"]
    with pytest.raises(ValueError, match="column 'size' has missing values"):
        read_table(path)
    path.write_text("size,y\n1.5,a\n2,\n")
    with pytest.raises(ValueError, match="column 'y' has missing values"):
        read_table(path, allow_missing=True)


def test_infinity_is_refused_by_line_and_column(tmp_path):
    with pytest.raises(ValueError, match=r"line 3: an infinite value in column 'b'"):
        read_table(_write(tmp_path / "i.csv", "a,b,y\n1,2,0\n2,inf,1\n3,-Infinity,0\n"))


def test_equality_block_matches_a_pass_per_value():
    """The one-pass category matrix against the per-value comparison it replaced
    (mixed types, 1 == 1.0 == True, missing cells, subsets, unseen values)."""
    import pandas as pd

    from optimaltrees.data.binarize import _equality_block, _equals
    rng = np.random.default_rng(3)
    pool = ["a", "b", "c", 1, 1.0, True, 2.5, None, np.nan, pd.NA, "1", np.str_("b"), -0.0, 0.0]
    for _ in range(200):
        col = np.empty(int(rng.integers(1, 30)), dtype=object)
        col[:] = [pool[i] for i in rng.integers(0, len(pool), len(col))]
        values = [v for v in ("a", "b", 1, 2.5, "zz", 0.0, "1")[:int(rng.integers(1, 8))]]
        want = np.stack([_equals(col, v) for v in values], axis=1)
        assert (_equality_block(col, values) == want).all()
        subsets = [values[: k + 1] for k in range(len(values))]
        want = np.stack([np.any([_equals(col, m) for m in s], axis=0) for s in subsets], axis=1)
        assert (_equality_block(col, subsets, subsets=True) == want).all()
    numeric = rng.integers(0, 5, 40).astype(float)
    assert (_equality_block(numeric, [1.0, 3.0, 7.0]) == np.stack([numeric == v for v in (1.0, 3.0, 7.0)], 1)).all()


def test_vectorised_missing_cells_match_the_per_cell_rule():
    # pandas' one-pass inference decides when pd.isna may stand for
    # is_missing; every mix of these cells must give the per-cell answer,
    # and a complex cell must still be refused wherever it hides
    import decimal

    import pandas as pd
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from optimaltrees.data.validation import is_missing, missing_cells, refuse_complex
    pool = ["a", "", b"b", 0, 1, 2**70, -3, 1.5, float("nan"), float("inf"), np.float32("nan"),
            np.int64(4), True, np.bool_(False), None, pd.NA, pd.NaT, np.datetime64("NaT"),
            decimal.Decimal("NaN"), decimal.Decimal("1.5"), complex(1, 2), (1, 2)]

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.sampled_from(pool), min_size=1, max_size=12))
    def check(cells):
        col = np.empty(len(cells), dtype=object)
        col[:] = cells
        want = [is_missing(v) for v in cells]
        assert missing_cells(col).tolist() == want
        has_complex = any(isinstance(v, complex) for v in cells)
        if has_complex:
            with pytest.raises(ValueError, match="complex"):
                refuse_complex([col], ["c"])
        else:
            refuse_complex([col], ["c"])
    check()
