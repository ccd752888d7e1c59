"""Every verdict word the tool prints, declared once with what it means.

Four things are judged, each with its own family of words: a paper's claim
(claims; a verdict that could not have failed names why: Forced), a calibration point (calibration), an era reading
(validation) and a student's answer (exercise); a tested claim's test run
(tested) has its own outcome. The words are str Enum members, so they are the
plain strings results documents, answers files and reports have always held
("met" == Verdict.MET), and the report's glossary reads their meanings here.
"""
from __future__ import annotations

from enum import Enum


class Word(str, Enum):
    """A verdict word: equal to, printed and stored as its plain string (enum.StrEnum is 3.11+;
    pyproject.toml promises 3.9)."""
    __str__ = str.__str__
    __format__ = str.__format__


class Verdict(Word):
    """A claim's verdict (claims.judge_all)."""
    REPRODUCED = "reproduced"
    IN_SHAPE = "reproduced in shape"
    NOT_REPRODUCED = "not reproduced"
    NOT_CHECKABLE = "not checkable"
    CALIBRATION = "calibration point"
    TESTED = "tested"
    FORCED = "forced by construction"
    CONSEQUENCE = "calibration consequence"
    UNDETERMINED = "undetermined by the sources"


class Forced(Word):
    """What made a verdict unable to fail (judge.forced): each kind is named and counted apart, since
    each says something different about the model. Decided in this order, the first that suffices."""
    WIRING = "the wiring"                    # the wires' limits alone
    CALIBRATION = "a calibration"            # a calibration's band, with the wires' limits
    MODEL = "the model's construction"       # the model's own caps and equalities as well


class Calibration(Word):
    """A calibration point's verdict (calibration.judge)."""
    MET = "met"
    MISSED = "missed"
    NOISY = "noisy"
    NOT_MEASURED = "not measured"


class Reading(Word):
    """Where an era check's median fell (validation.read): never a verdict on a claim."""
    IN_BAND = "in band"
    BELOW = "below band"
    ABOVE = "above band"
    NOT_MEASURED = "not measured"


class Answer(Word):
    """A student's answer to one question (judge.exercise.judge)."""
    PASS = "pass"
    WRONG = "wrong"
    BLANK = "blank"
    UNREADABLE = "unreadable"
    NOT_JUDGED = "not judged"


class TestRun(Word):
    """A tested claim's test, run by `reproduce` (tested.run)."""
    PASSED = "passed"
    FAILED = "failed"
    SUITE_ONLY = "run by the test suite, not here"


PASSES = (Verdict.REPRODUCED, Verdict.IN_SHAPE)   # the claim verdicts that count as reproduced

MEANING: dict[Word, str] = {
    Verdict.REPRODUCED: "the measured value is within the claim's declared tolerance of the paper's, "
                        "and the relation it states holds.",
    Verdict.IN_SHAPE: "reproduced in shape: the relation the claim states holds, the number does not.",
    Verdict.NOT_REPRODUCED: "trusted points were measured and the claim's check failed on them.",
    Verdict.NOT_CHECKABLE: "no verdict: a point it reads failed a fidelity gate, a calibration it rests "
                           "on was not met, its repeats disagree (noisy), or it was not measured.",
    Verdict.CALIBRATION: "a measurement a constant of the model was set from, or that its constants "
                         "predict (a 1996 profile's lone round trip; beowulf_netlab/claims/calibrations.json), checked "
                         "on every run against a tolerance declared beforehand; one not met makes "
                         "every point resting on it untrusted.",
    Verdict.TESTED: "a fact of the wiring, checked by a named test rather than measured as a claim.",
    Verdict.FORCED: "the claim could not have failed on this view: every measurement the calibrations "
                    "and gates admit gives the same verdict (counted apart, never as reproduced).",
    Forced.WIRING: "forced by the wiring: the wires' payload limits, shared by the flows that cross "
                   "them, leave no reading that fails the claim.",
    Forced.CALIBRATION: "forced by a calibration: a point the claim reads is (or, its own text says, "
                        "reads) a calibration's quantity, pinned to its band, and with the wires' limits "
                        "no reading fails the claim.",
    Forced.MODEL: "forced by the model's construction: its disks, CPU costs and round trips, or two "
                  "points it makes equal, leave no reading that fails the claim; only an emulator "
                  "defect of the size the report names could.",
    Verdict.CONSEQUENCE: "the value follows from calibration points alone, so it is counted apart.",
    Verdict.UNDETERMINED: "on the paper's hardware the verdict changes between the two ends of a "
                          "constant the era sources give only as a range (the report names it): the "
                          "sources cannot decide the claim, so it is counted apart.",
    Calibration.MET: "the calibration's median of its repeats is within its declared tolerance.",
    Calibration.MISSED: "the calibration's median is outside its tolerance: every number resting on it "
                        "is untrusted.",
    Calibration.NOISY: "the repeats disagree on the verdict, or spread wider than the tolerance (a "
                       "claim's or a calibration's): a claim that is noisy is not checkable.",
    Calibration.NOT_MEASURED: "no trusted measurement of it in this run.",
    Reading.IN_BAND: "an era check's median fell inside the band declared before running.",
    Reading.BELOW: "an era check's median fell below its band: a mechanism the model lacks, never a "
                   "constant to change.",
    Reading.ABOVE: "an era check's median fell above its band.",
    Answer.PASS: "a student's answer within the question's tolerance of the measurement.",
    Answer.WRONG: "a student's answer outside it.",
    Answer.BLANK: "no answer given.",
    Answer.UNREADABLE: "an answer (or a whole answers file) that cannot be read as a number in the question's "
                       "unit or as one of its choices.",
    Answer.NOT_JUDGED: "a measured question with no measurement to judge it against.",
}
