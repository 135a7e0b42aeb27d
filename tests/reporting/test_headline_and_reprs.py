"""The report leads with its headline; results shown in a notebook are HTML tables."""

import numpy as np

import softirr_stats as sis


def test_report_leads_with_the_headline_symbols_and_vector_figures():
    from softirr_stats.reporting import build_report

    ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["c", "c", "c"]] * 4)
    page = build_report(ann, coefficients=["fleiss_kappa", "percent_agreement"], ci=sis.Bootstrap(n=30, seed=0))
    main_html = page.split("<main>")[1]
    assert main_html.startswith('<section id="headline">')
    assert "κ (Fleiss) = " in main_html.split("</section>")[0] and "No judgments were given" in main_html
    assert "data:image/svg+xml;base64," in page and "data:application/pdf;base64," in page
    assert "<td>κ (Fleiss)</td>" in page
    assert "Percent agreement is not chance-corrected, so it has its own axis" in page


def test_notebook_reprs_are_html_tables():
    from softirr_stats.inference import FitDiagnostics, PredictiveCheck

    d = FitDiagnostics("dawid_skene", "nuts", 2, 500, max_r_hat=1.0123456789, min_ess=812.345678,
                       n_transitions=1000, n_divergent=0, caveats=("Convergence: something",))
    page = d._repr_html_()
    assert page.startswith("<div><table") and "1.012" in page and "1.0123456789" not in page
    assert "caveat: Convergence: something" in page
    check = PredictiveCheck("fleiss_kappa", 0.4, np.linspace(0.3, 0.5, 201), 0.5)
    assert "Posterior predictive check of fleiss_kappa" in check._repr_html_() and ">201<" in check._repr_html_()
