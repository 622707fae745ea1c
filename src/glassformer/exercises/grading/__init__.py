"""Grading a learner's file, from its bytes to the sentence the learner reads.

    check(name, file)                one file            -> Report
    check_many([(name, file), ...])  many, one process   -> [Report]   (educator mode, tests)
    render(report)                   a Report as text, in the process's language

A file goes through one module per job:
  reading.py     the file's bytes, which must be UTF-8 (anything else is refused, naming the
                 byte), its syntax, the functions it defines
  scanning.py    forbidden shortcuts, found by walking the learner's syntax tree (never by running it)
  (running)      the learner's calls in a confined child process with a time limit (../sandbox.py);
                 the report says whether the confinement was on
  comparing.py   each exercise's expected values (glassformer.nn's and the NumPy twin's outputs,
                 computed once per process), and the learner's values against them: first
                 mismatch, largest error
  diagnosing.py  a known-wrong variant the learner's outputs equal, or a hint
  report.py      the Report, and its text in the learner's language

This file strings them together: a file that fails to read, holds a forbidden shortcut or lacks a
function is graded without running anything; the others run together in one child process.
"""

from __future__ import annotations

from pathlib import Path

import glassformer.exercises.catalog as catalog
from glassformer.errors import DamagedFile
from glassformer.exercises.grading.comparing import grade_case, one_thread, prepare
from glassformer.exercises.grading.diagnosing import diagnose, error_hint
from glassformer.exercises.grading.reading import defined_names, read
from glassformer.exercises.grading.report import FORGED, Offence, Report, render
from glassformer.exercises.grading.scanning import scan
from glassformer.exercises.sandbox import QUOTA, TIMEOUT, Job, JobResult, run_jobs
from glassformer.messages import N_

__all__ = ["TIMEOUT", "Report", "check", "check_many", "render"]


def check(name: str, file: Path | str, timeout: float = TIMEOUT) -> Report:
    return check_many([(name, file)], timeout)[0]


def check_many(items: list[tuple], timeout: float = TIMEOUT) -> list[Report]:
    """Grade several (exercise, file) pairs with one child process (torch imported once). An item
    may carry its own time limit as a third element: (exercise, file, seconds)."""
    with one_thread():
        return _check_many(items, timeout)


def _check_many(items: list[tuple], timeout: float) -> list[Report]:
    reports, jobs = [], []
    for n, (name, file, *own) in enumerate(items):
        limit = own[0] if own else timeout
        report = _static_checks(catalog.get(name).name, Path(file), limit)
        reports.append(report)
        if report.status == "pending":
            prep = prepare(report.exercise)
            calls = [
                {"fn": c.fn, "args": c.args, "grad": list(c.grad), "cot": cot or []}
                for c, cot in zip(prep.cases, prep.cot, strict=False)
            ]
            rules = [(rule.names, rule.why) for rule in catalog.get(name).forbidden]
            jobs.append(Job(f"j{n}", Path(file), calls, limit, rules))
    # the reference solutions' folder is not for the learner's code to read (unless it is being graded)
    results = run_jobs(jobs, timeout, deny=(catalog._solutions_folder(),)) if jobs else {}
    for job in jobs:
        report = reports[int(job.id[1:])]
        _grade(report, results[job.id])
    return reports


def _grade(report: Report, result: JobResult) -> None:
    report.sandbox = result.sandbox
    if result.status == "done" and result.payload.get("forbidden"):  # refused at run time: see sandbox.Gate
        report.status = "forbidden"
        report.offences = [Offence(h["file"], h["line"], h["name"], h["why"]) for h in result.payload["forbidden"]]
        report.stdout = result.payload["stdout"]
        return
    if result.status != "done":
        report.status = {"timeout": "timeout"}.get(result.status, "crashed")
        report.exit_code, report.stdout = result.exit_code, result.stderr
        if result.status == "no_start":
            report.diagnosis = (
                N_("The process that runs your code could not start: {stderr}"),
                {"stderr": result.stderr.strip()[-400:]},
            )
        if result.status == "quota":
            report.diagnosis = (
                N_("your code wrote more than {mib} MiB of files; it was stopped (the exercises need none)."),
                {"mib": QUOTA >> 20},
            )
        if result.status == "protocol":  # what came back is not what run_job writes: forged or broken
            report.diagnosis = (FORGED, {"reason": result.reason})
        return
    payload = result.payload
    report.stdout = payload["stdout"]
    if payload["import_error"]:
        report.import_error = payload["import_error"]
        report.status = "todo" if payload["import_error"]["type"] == "NotImplementedError" else "crashed"
        report.diagnosis = error_hint(report.exercise, payload["import_error"])
        return
    prep, ex = prepare(report.exercise), catalog.get(report.exercise)
    for i, (case, call) in enumerate(zip(prep.cases, payload["calls"], strict=False)):
        report.cases.append(grade_case(ex, prep, i, case, call))
    failing = [c for c in report.cases if not c.ok]
    if not failing:
        report.status = "passed"
    elif all(c.todo for c in failing):
        report.status = "todo"
    else:
        report.status = "crashed" if any(c.error and not c.todo for c in failing) else "failed"
        report.diagnosis = diagnose(ex, prep, report, payload["calls"])


def _static_checks(name: str, file: Path, timeout: float) -> Report:
    """Missing file, not UTF-8, syntax error, forbidden shortcut or missing function: no process needed."""
    report = Report(name, file, "pending", timeout=timeout)
    got = read(report)
    if got is None:
        return report
    source, tree = got
    ex = catalog.get(name)
    try:
        report.offences = scan(file, ex.forbidden, source)
    except DamagedFile as e:  # a sibling the file imports is not UTF-8
        report.status, report.refusal = "encoding", e
        return report
    if report.offences:
        report.status = "forbidden"
        return report
    report.missing_functions = [f.name for f in ex.functions if f.name not in defined_names(tree)]
    if report.missing_functions:
        report.status = "failed"
    return report
