"""One file per exercise, named like the exercise (catalog.ORDER lists them), holding all of it:

    SOLUTION     the reference solution: the text of a learner's file that passes (torch and
                 math only), printed by `glassformer exercise solution NAME`
    references   glassformer.nn's answer and the NumPy twin's
    variants     small functions with the learner's signature, each making one usual mistake
    cases        named edge cases first, then random ones from the exercise's seeded generator
    EXERCISE     the Exercise these make, with the shortcuts the learner may not call, and its
                 words: title, todo, hints, each Function's doc (the math and the shapes, the
                 skeleton's docstring) and each Variant's note (what that mistake is)

Each word is written once, as a literal catalogue key where it is used (`N_("exercise.NAME.title")`,
case labels in make_cases); the sentences, English and Chinese, are in the one catalogue
(glassformer.messages). The module's docstring says only how the exercise is graded, and the
reference solution carries comments, not a second copy of the docstring.
"""
