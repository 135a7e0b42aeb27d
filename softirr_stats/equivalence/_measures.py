"""The one table of estimator short names (``MEASURES``), on its own so that the name resolver
(``_label_similarity.estimator_from_name``) and the spec allow-list (``_spec``) both read it and
neither imports the other for it."""

__all__ = ["MEASURES"]

_EQ = "softirr_stats.equivalence"
#: The estimators with a short name: name -> ``"module:Class"`` (nothing is imported until one is
#: made by :func:`estimator_from_name`). This is the one table of estimator names: ``similarity="<name>"``
#: of every coefficient, ``sensitivity``, the commands' ``--similarity`` lists and the spec allow-list
#: (:func:`~softirr_stats.equivalence.from_spec`) read it. A class whose constructor takes ``model``
#: (``Embedding``, ``Nli``, ``LlmJudge``) is given one as ``"<name>:<model>"``; where ``model`` has no
#: default (``nli``, ``llm_judge``) the name alone asks for one. A new estimator with a short name is
#: its class and one entry here.
MEASURES: dict[str, str] = {
    "exact": f"{_EQ}._string:Exact", "levenshtein": f"{_EQ}._string:Levenshtein", "indel": f"{_EQ}._string:Indel",
    "lcs": f"{_EQ}._string:Lcs", "jaccard": f"{_EQ}._string:Jaccard", "masi": f"{_EQ}._string:Masi",
    "dice": f"{_EQ}._string:Dice", "embedding": f"{_EQ}._embedding:Embedding", "nli": f"{_EQ}._nli:Nli",
    "llm_judge": f"{_EQ}._judge:LlmJudge",
}
