"""One file per exercise, named like the exercise (catalog.ORDER lists them), holding all of it:

    SOLUTION     the reference solution: the text of a learner's file that passes (torch and
                 math only), printed by `glassformer exercise solution NAME`
    references   glassformer.nn's answer and the NumPy twin's
    variants     small functions with the learner's signature, each making one usual mistake
    cases        named edge cases first, then random ones from the exercise's seeded generator
    EXERCISE     the Exercise these make, with the shortcuts the learner may not call

Its words (title, docstrings, hints, the message for each known mistake, case names) are in the
one catalogue, keyed `exercise.NAME.*` (messages/exercises.py, English and Chinese).
"""
