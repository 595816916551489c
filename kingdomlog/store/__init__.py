"""Storage: a campaign's append-only Parquet log, its snapshot cache and its ``campaign.toml``.

What a person does with a campaign (state, preview, commit, ...) is in ``kingdomlog.app``.
"""

from kingdomlog.store.config import CONFIG_FILE, CampaignConfig, load_config
from kingdomlog.store.log import AppendResult, EventLog, Head, Stamp

__all__ = ["CONFIG_FILE", "AppendResult", "CampaignConfig", "EventLog", "Head", "Stamp", "load_config"]
