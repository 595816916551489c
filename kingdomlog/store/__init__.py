"""Storage: a campaign folder and its append-only Parquet log."""

from kingdomlog.store.campaign import Campaign, CampaignConfig, VerifyReport, load_config
from kingdomlog.store.log import AppendResult, EventLog, Head, Pending

__all__ = ["AppendResult", "Campaign", "CampaignConfig", "EventLog", "Head", "Pending", "VerifyReport", "load_config"]
