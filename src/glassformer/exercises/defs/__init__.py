"""One exercise definition per file, named like the exercise (catalog.ORDER lists them).

Each file builds `EXERCISE = Exercise(...)` from four parts: the references (glassformer.nn
and the NumPy twin), the known-wrong variants (each a small function making one usual mistake),
the cases (named edge cases first, then random ones from the exercise's seeded generator), and
the rules of what the learner may not call.
"""
