"""Reference solutions, one file per exercise, written exactly as a learner's file would be:
only torch and math, no glassformer, no helper shared across files (so each file stands alone).

`glassformer exercise solution NAME` prints the file; the tests grade every one of them with
the same grader the learner meets, in the same separate process.
"""
