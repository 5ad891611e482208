// The report folder: scenario files, counterexample reports, graph rendering.
