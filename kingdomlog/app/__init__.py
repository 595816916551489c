"""The application layer: what the CLI, the notebooks and the servers do with a campaign.

``Campaign`` opens a folder and offers every use of it (state, preview, commit, retract,
note, raw append, submissions, export, import, verify); ``audit`` compares a log with
today's rules. ``store`` underneath keeps the log, the cache and the config; ``core``
holds the pure fold and previews.
"""

from typing import TYPE_CHECKING, Any

from kingdomlog.app.audit import AuditReport, Finding, audit
from kingdomlog.app.campaign import Campaign, VerifyReport

if TYPE_CHECKING:
    from kingdomlog.app.submissions import SubmissionCheck

__all__ = ["AuditReport", "Campaign", "Finding", "SubmissionCheck", "VerifyReport", "audit"]


def __getattr__(name: str) -> Any:
    """``SubmissionCheck`` from ``app.submissions``, imported when asked for: reading a state needs no submission
    (issue 31: ``kingdomlog state`` imports ``kingdomlog.app``)."""
    if name == "SubmissionCheck":
        from kingdomlog.app.submissions import SubmissionCheck

        return SubmissionCheck
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
