"""Sample events (one of every type) and sample plans (founding + 2 years) for the conformance suite."""

from __future__ import annotations

from typing import Any

from kingdomlog.core.events import Draft
from kingdomlog.rulesets.aikakirjat.events import (
    ActionTaken,
    Allocation,
    BenefitChosen,
    DieRecord,
    EvilManifested,
    EvilVanquished,
    FameGained,
    GmAdjustment,
    GovernmentChanged,
    GrowthRolled,
    InstitutionFounded,
    KingdomContacted,
    KingdomFounded,
    LawAndOrderUsed,
    LevelChanged,
    LevelHoldChecked,
    LevyDieGained,
    NaturalDisasterResolved,
    NeighbourEventRolled,
    NewGodAppeared,
    Order,
    PcLevelReached,
    PeaceTerms,
    PlagueResolved,
    RandomEventRolled,
    RevolutionRolled,
    SessionEnded,
    SessionStarted,
    WarBegun,
    WarEnded,
    WarTurnResolved,
    WarUpkeepApplied,
    WarYearStarted,
    YearEnded,
    YearStarted,
)
from kingdomlog.rulesets.aikakirjat.state import Neighbour, NeighbourProfile, Province, TerritoryArea


def _d(key: str, notation: str, *faces: int) -> DieRecord:
    return DieRecord(key=key, notation=notation, faces=faces, total=sum(faces))


def sample_founding() -> dict[str, Any]:
    """A small kingdom with two neighbours and a province map (used by the samples and the demo)."""
    return {
        "name": "Pohjola",
        "government": "feudalism",
        "base_scores": {"culture": 12, "economy": 13, "loyalty": 14, "stability": 11},
        "extra_proficiency": "construction",
        "population": 3,
        "territory": [{"area_id": "home", "unit": "hex", "amount": 2, "quality": 1.0},
                      {"area_id": "marsh", "unit": "hex", "amount": 2, "quality": 0.5}],
        "neighbours": [
            {"id": "kalevala", "name": "Kalevala", "diplomacy": 2, "population": 6,
             "profile": {"government": "republic", "stability_score": 13, "trade_bonus": 3, "militia": 4,
                         "warfare_bonus": 3, "defence": 12, "bureaucracy_bonus": 2, "damage_die": 6}},
            {"id": "tuonela", "name": "Tuonela", "diplomacy": -5, "population": 5,
             "profile": {"government": "autocracy", "stability_score": 12, "trade_bonus": 2, "crime_modifier": -1,
                         "militia": 4, "warfare_bonus": 3, "defence": 11, "bureaucracy_bonus": 1, "damage_die": 4}},
        ],
        "provinces": [
            {"id": "p-home", "owner": "players", "controller": "players", "adjacent": ["p-march"]},
            {"id": "p-march", "owner": "players", "controller": "players", "adjacent": ["p-home", "t-border"]},
            {"id": "t-border", "owner": "tuonela", "controller": "tuonela", "adjacent": ["p-march", "t-home"],
             "terrain": "tundra"},
            {"id": "t-home", "owner": "tuonela", "controller": "tuonela", "adjacent": ["t-border"]},
            {"id": "k-home", "owner": "kalevala", "controller": "kalevala", "adjacent": []},
        ],
        "pcs": {"aino": {"name": "Aino", "level": 5}, "ilmari": {"name": "Ilmari", "level": 6}},
    }


def sample_plans() -> list[dict[str, Any]]:
    """Founding, then two years: the first with defaults, the second with PC and explicit actions."""
    return [
        {"turn": 0, "seed": "aikakirjat-sample-0", "steps": {"founding": {"choices": sample_founding()}}},
        {"turn": 1, "seed": "aikakirjat-sample-1", "steps": {}},
        {"turn": 2, "seed": "aikakirjat-sample-2", "steps": {
            "actions": {"choices": {"actions": [
                {"action": "embassy", "performer": "pc", "pc_id": "aino", "pc_bonus": 5, "neighbour_id": "tuonela"}]}},
        }},
    ]


def sample_events() -> list[Draft]:
    """At least one valid payload of every aikakirjat event type."""
    f = sample_founding()
    founded = KingdomFounded(
        name=f["name"], government=f["government"], base_scores=f["base_scores"],
        extra_proficiency=f["extra_proficiency"],
        territory=(TerritoryArea(area_id="home", amount=2),),
        neighbours=(Neighbour(id="tuonela", name="Tuonela", diplomacy=-5, profile=NeighbourProfile(militia=4)),),
        provinces=(Province(id="p-home", owner="players", controller="players"),),
    )
    check = _d("check", "1d20", 14)
    payloads = [
        founded,
        SessionStarted(session_no=1, dice=(_d("years", "5d10", 3, 5, 7, 2, 9),), audit={"years_total": 26}),
        YearStarted(year=1),
        LevyDieGained(dice=(_d("levy", "1d6", 5),)),
        RandomEventRolled(dice=(_d("event", "2d6", 1, 1),), audit={"omen": 0, "total": 2,
                                                                   "result_key": "natural_disaster"}),
        NaturalDisasterResolved(dice=(_d("disaster.decay", "4d6", 3, 5, 4, 2), _d("disaster.unrest", "1d6", 4))),
        PlagueResolved(dice=(_d("plague.stability", "1d20", 12), _d("plague.unrest", "1d6", 2))),
        EvilManifested(ability="loyalty"),
        EvilVanquished(ability="loyalty"),
        NewGodAppeared(choice="embrace", dice=(_d("god", "1d6", 4),)),
        NeighbourEventRolled(neighbour_id="tuonela",
                             dice=(_d("neighbour", "1d6", 6), _d("neighbour.diplomacy", "1d6", 2))),
        GrowthRolled(dice=(_d("growth", "1d20", 9),)),
        ActionTaken(index=1, action="reduce_corruption", target_track="decay",
                    dice=(check, _d("target", "1d6", 5))),
        RevolutionRolled(cause="unrest", dice=(_d("roll", "2d6", 6, 6), _d("unrest", "1d10", 4))),
        GovernmentChanged(to="republic", dice=(_d("unrest", "1d6", 3),)),
        WarBegun(war_id="war-1-tuonela", attacker="tuonela", defender="players", cause="automatic"),
        WarYearStarted(war_id="war-1-tuonela",
                       allocations=(Allocation(army_id="p-army1", province_id="p-home", militia=4),),
                       enemy_allocations=(Allocation(army_id="tuonela-army1", province_id="t-home", militia=4),)),
        WarTurnResolved(war_id="war-1-tuonela", war_turn=1,
                        orders=(Order(army_id="p-army1", kind="move", path=("p-march",)),),
                        enemy_orders=(Order(army_id="tuonela-army1", kind="hold"),),
                        peace=PeaceTerms(performer="pc", pc_bonus=5)),
        WarEnded(war_id="war-1-tuonela", reason="militia_zero", winner="players", dice=(_d("loss", "1d6", 3),)),
        WarUpkeepApplied(war_id="war-1-tuonela", dice=(_d("attrition.p-army1.in_field", "1d6", 2),)),
        LawAndOrderUsed(track="crime"),
        FameGained(amount=1, source="survived_year"),
        LevelChanged(from_level=1, to_level=2, cause="fame"),
        LevelHoldChecked(dice=(_d("hold", "1d20", 11),)),
        BenefitChosen(level=2, benefit="feat", feat="law_and_order"),
        InstitutionFounded(institution_id="academy-1", kind="academy"),
        PcLevelReached(pc_id="aino", level=10),
        GmAdjustment(field="fame", delta=3, reason="a festival remembered for generations"),
        KingdomContacted(kingdom=Neighbour(id="hyperborea", name="Hyperborea", diplomacy=0, population=40)),
        YearEnded(year=1),
        SessionEnded(session_no=1),
    ]
    return [Draft(p, phase="sample", actor="gm", visibility="gm" if isinstance(p, GmAdjustment) else "public")
            for p in payloads]
