"""The typed choices of every Signoria step (a plan's ``steps.<step>.choices``).

Every id the state knows (factions, characters, provinces, dilemmas, candidates, a faction's own
characters and spy slots, this turn's orders, campaigns and battles) is a ``Pick`` whose options
``vocabulary.vocabulary`` computes from the state. A faction's own steps (``command_<f>``,
``orders_<f>``) have models of their own, built per faction (``orders_choices(fid)``), whose picks
list only what that faction may name: its own characters, spy slots, dilemmas and candidates, and
what is public (factions, provinces). A rival character it targets (bribery, assassination) is left
to the rules, which check it and cite the section: the state does not hold all a faction may have
heard of a rival court, and listing every character would show a faction its rivals' secrets.

The plan shapes are those of the Felmonte demo and the README (``{faction: ...}`` maps stay maps).
Ids used as the keys of such a map are ``Pick`` s too (``dict[Annotated[str, Pick(...)], ...]``);
``core.choices`` checks them like every other pick (keys, values, entries inside maps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Literal, Optional, cast

from pydantic import ConfigDict, Field, create_model, model_validator

from kingdomlog.core.choices import LIMIT, Amount, Choices, Count, FreeJson, InOrder, Pick
from kingdomlog.rulesets.signoria.rules import Action

Resource = Literal["power", "piety", "wealth", "army"]
Stake = Literal["elementary", "low", "high"]
Tactic = Literal["breakthrough", "encirclement", "ambush", "hold", "counterattack"]
TreatyKind = Literal["non_aggression", "right_of_passage", "trade", "military_aid", "military_alliance",
                     "player_treaty"]
Condition = Literal["active", "wounded", "dead", "departed"]
IntelSource = Literal["scouts", "spy", "battle", "notice", "public", "ruling"]
BattleOption = Literal["join", "hospital", "no_prisoners", "back_cowards", "regroup", "fight_to_last", "epic_duel",
                       "none", "reserve_first"]
RoundKey = Annotated[Literal["1", "2", "3"], Pick("battle_rounds", what="a round of the battle", open=True)]
"""A battle's round, as the key of its declarations; a form offers them in words (``Round 1``)."""

FactionId = Annotated[str, Pick("factions", what="a faction of this game")]
PlayerId = Annotated[str, Pick("player_factions", what="an active player faction")]
NeutralId = Annotated[str, Pick("neutrals", what="a neutral of this game")]
CharacterId = Annotated[str, Pick("characters", what="a character of this game")]
StatesmanId = Annotated[str, Pick("statesmen", what="a statesman of this game")]
TraitId = Annotated[str, Pick("traits", what="a trait (§8.5)")]
LeaderTraitId = Annotated[str, Pick("leader_traits", what="a trait a leader may have (§2.4)")]
OrderKey = Annotated[str, Pick("turn_orders", what="an order of this turn (<faction>.<order id>)")]
LossEntry = Annotated[str, Pick("loss_entries", what="'own' (the faction's own units) or a neutral")]
LOSSES_HELP = ("who of this side falls first when it takes losses: 'own' and the neutrals whose contingents "
               "fight with it, in order (§5.8 step 8, §7.2; default: own units first)")


# ---------------------------------------------------------------------------------------------- GM rulings

class Effect(Choices):
    """One typed effect of a GM ruling, a global event or a dilemma option (§11.2 ``Effect``).

    ``kind`` says which fields apply: ``resource`` (faction, resource, delta), ``set_resource`` (faction,
    resource, value), ``treaty`` (id, type, parties, neutral, stake, turn, aid_units), ``intel`` (observer,
    subject, fields, turn, phase, source, believed), ``standing`` (faction, neutral, delta), ``slots``
    (faction, slot, delta), ``character`` (character, condition), ``loyalty`` (character, value), ``flag``
    (text), ``text`` (flavour only).
    """

    kind: Literal["resource", "set_resource", "treaty", "intel", "standing", "slots", "character", "loyalty", "flag",
                  "text"]
    faction: FactionId | None = None
    resource: Resource | None = None
    delta: Amount | None = None
    value: Amount | None = None
    id: str | None = Field(None, title="Treaty's short name", description="treaty: a short name of your own for it"
                                                                           " (left empty: t1, t2, … in order)")
    type: TreatyKind | None = Field(None, description="treaty: its kind")
    parties: list[FactionId] | None = None
    neutral: NeutralId | None = None
    stake: Stake | None = None
    turn: Count | None = None
    aid_units: Count | None = None
    observer: FactionId | None = None
    subject: FactionId | None = None
    fields: dict[Annotated[str, Field(title="Thing learned")],
                 Annotated[FreeJson, Field(title="What it is")]] | None = Field(
        None, title="What was learned", description="intel: each thing learned and what it is, as the GM words it (a"
                                                     " resource's value, a roster, anything); the rules leave its"
                                                     " shape to the GM")
    phase: str | None = None
    source: IntelSource | None = None
    believed: bool | None = None
    slot: Literal["special", "ordinary"] | None = None
    character: CharacterId | None = None
    condition: Condition | None = None
    text: str | None = None

    @classmethod
    def unused(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """The fields an effect of the chosen kind does not read (``EFFECT_USES``), left off its form: a treaty's
        form asked for a resource, a delta, an observer and a condition too ("More: resource, delta, value, …").

        >>> loyalty = Effect.unused({"kind": "loyalty"}, None)
        >>> sorted(loyalty)[:4], "character" in loyalty
        (['aid_units', 'believed', 'condition', 'delta'], False)
        >>> Effect.unused({}, None)
        frozenset()
        """
        uses = EFFECT_USES.get(str(values.get("kind")))
        if uses is None:
            return frozenset()
        return frozenset(cls.model_fields) - {"kind", *uses}

    @classmethod
    def needed(cls, values: Mapping[str, Any], state: Any) -> frozenset[str]:
        """The fields an effect of the chosen kind is refused without (``EFFECT_NEEDS``), shown at once: a treaty's
        parties were folded under "More" while the step said "a treaty effect needs … its parties".

        >>> sorted(Effect.needed({"kind": "treaty"}, None))
        ['parties', 'type']
        """
        return frozenset(EFFECT_NEEDS.get(str(values.get("kind")), ()))

    @model_validator(mode="after")
    def _fields_of_its_kind(self) -> Effect:
        missing = [f for f in EFFECT_NEEDS[self.kind] if getattr(self, f) is None]
        if missing:
            raise ValueError(effect_needs(self.kind, missing))
        return self


_NEEDED_WORDS = {"delta": "the change", "value": "the value", "type": "the treaty's kind", "parties": "its parties",
                 "observer": "who learns it", "subject": "whom it is about", "fields": "what was learned",
                 "neutral": "the neutral", "character": "the character", "condition": "the condition",
                 "faction": "the faction", "resource": "the resource"}


def effect_needs(kind: str, missing: Sequence[str]) -> str:
    """What an effect of ``kind`` left without the fields ``missing`` needs, as a person says it.

    >>> effect_needs("intel", ["fields"])
    'an intel effect needs what was learned: give it, or leave the effect out'
    >>> effect_needs("set_resource", ["faction", "value"])
    'a set resource effect needs the faction and the value: give them, or leave the effect out'
    """
    said = [_NEEDED_WORDS.get(f, f.replace("_", " ")) for f in missing]
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    what = kind.replace("_", " ")
    article = "an" if what[:1] in "aeiou" else "a"
    them = len(said) > 1 or missing[0] == "parties"
    return f"{article} {what} effect needs {listed}: give {'them' if them else 'it'}, or leave the effect out"


EFFECT_NEEDS: dict[str, tuple[str, ...]] = {
    "resource": ("faction", "resource", "delta"), "set_resource": ("faction", "resource", "value"),
    "treaty": ("type", "parties"), "intel": ("observer", "subject", "fields"),
    "standing": ("faction", "neutral", "delta"), "slots": ("faction", "delta"),
    "character": ("character", "condition"), "loyalty": ("character", "value"), "flag": (), "text": (),
}
"""The fields each kind of effect needs (``evolve.apply_effect``): refused where the GM types the effect, not when
the fold applies it."""

EFFECT_USES: dict[str, tuple[str, ...]] = {
    "resource": ("faction", "resource", "delta"), "set_resource": ("faction", "resource", "value"),
    "treaty": ("id", "type", "parties", "neutral", "stake", "turn", "aid_units"),
    "intel": ("observer", "subject", "fields", "turn", "phase", "source", "believed"),
    "standing": ("faction", "neutral", "delta"), "slots": ("faction", "slot", "delta"),
    "character": ("character", "condition"), "loyalty": ("character", "value"), "flag": ("text",), "text": ("text",),
}
"""The fields each kind of effect reads at all, needed or not (``evolve.apply_effect``); a form asks only these
(``Effect.unused``)."""


class Ruling(Choices):
    """A GM ruling (§11.1): the gap it fills, its text, who may read it and its typed effects."""

    gap: str = Field("GM", description="the gap or rule it rules on (G-29, §4.2, ...)")
    text: str = ""
    visibility: Annotated[str, Pick("visibilities", what="who may read it", open=True)] = Field(
        "gm", title="Who may read it", description="the GM only, everyone, or player factions of this game")
    effects: list[Effect] = Field(default_factory=list)


RULINGS_FIELD: Any = Field(default_factory=list, title="GM rulings",
                      description="rulings with typed effects, recorded at the end of the step")


class RulingsChoices(Choices):
    """A resolution phase whose only input is the GM's rulings (the orders were sealed earlier)."""

    rulings: list[Ruling] = RULINGS_FIELD


# ---------------------------------------------------------------------------------------------- setup

class StatesmanEntry(Choices):
    """A starting statesman: his name (and id); his trait is rolled on a d6 (§8.5)."""

    id: str | None = Field(None, description="character id (default: from the name); no faction prefix (§6.2)")
    name: str
    heir: bool = False


class ResourceValues(Choices):
    """Secret starting values of one faction (unset ones keep the setting's or the options')."""

    power: Count | None = None
    piety: Count | None = None
    wealth: Count | None = None
    army: Count | None = None


def _default_leader_traits() -> dict[str, list[str]]:
    return {"fabian": ["general", "intriguer"], "marburg": ["steward", "intriguer"]}


class SetupChoices(Choices):
    """Turn 0 (§2.9): leaders' traits and names, starting statesmen, secret resources, GM rulings."""

    leader_traits: dict[PlayerId, list[LeaderTraitId]] = Field(
        default_factory=_default_leader_traits, title="Leaders' two traits",
        description="each faction's two different traits (§2.4): steward, intriguer, general, devout")
    leader_names: dict[PlayerId, str] = Field(default_factory=dict, title="Leaders' names")
    statesmen: dict[PlayerId, list[StatesmanEntry]] = Field(
        default_factory=dict, title="Starting statesmen (names; traits are rolled)",
        description="each faction's statesmen; a faction left out gets as many unnamed ones as the campaign"
                    " gives each faction")
    resources: dict[FactionId, ResourceValues] = Field(
        default_factory=dict, title="Secret starting resources",
        description="each faction's power, piety, wealth and army; recorded only in that faction's events")
    resume_turn: int = Field(0, ge=0, le=LIMIT, title="Resume a game after this turn (0 = new game)")
    rulings: list[Ruling] = RULINGS_FIELD


# ---------------------------------------------------------------------------------------------- turn opening

class GlobalEvent(Choices):
    """The month's global event (§4.2), public."""

    title: str = Field("", title="What happens", description="the news as the players read it (\"An autumn fever"
                                                             " in the ports\")")
    key: str = Field("", title="Short name", description="a short name of your own for the event, kept in the log"
                                                         " for searching (e.g. autumn_fever); the players read the"
                                                         " words above")
    """Empty by default, recorded as ``event`` (``decide``): the form's box held the word "event", a key to fill that
    read as code."""
    effects: list[Effect] = Field(default_factory=list)


class FactionEvent(Choices):
    """An event of one faction (§4.2), told to it alone."""

    faction: FactionId
    text: str = ""
    effects: list[Effect] = Field(default_factory=list)


class DilemmaOptionEntry(Choices):
    """One option of a dilemma; its effects are the GM's ruling when chosen (G-29)."""

    id: str
    text: str
    effects: list[Effect] = Field(default_factory=list)


class DilemmaEntry(Choices):
    """A dilemma dealt to one faction (§4.1 A7)."""

    faction: FactionId
    id: str
    text: str = ""
    options: list[DilemmaOptionEntry] = Field(default_factory=list)


class CandidateEntry(Choices):
    """A statesman candidate offered to one faction (§4.6); his trait is rolled."""

    faction: FactionId
    name: str
    id: str | None = Field(None, description="candidate id (default t<turn>.c<n>)")
    cost: Count | None = Field(None, description="wealth to hire (default statesman_hire_cost)")


class TurnOpenChoices(Choices):
    """Turn opening (§4.3): the global event, faction events, dilemmas, candidates, GM rulings."""

    global_event: GlobalEvent | None = Field(None, title="Global event")
    faction_events: list[FactionEvent] = Field(default_factory=list, title="Faction events")
    dilemmas: list[DilemmaEntry] = Field(default_factory=list, title="Dilemmas")
    candidates: list[CandidateEntry] = Field(default_factory=list, title="Statesman candidates")
    rulings: list[Ruling] = RULINGS_FIELD


# ---------------------------------------------------------------------------------------------- a faction's own steps

PayResource = Literal["power", "wealth"]


class CommandChoices(Choices):
    """The command roll (§3.1): a stake and the rerolls bought, in order, while the roll fails."""

    stake: Literal["low", "high"] = Field("low", title="Stake", description="low 5+, high 8+ (§3.1)")
    pay: Annotated[list[PayResource], InOrder()] = Field(
        default_factory=list, title="Rerolls paid, in order, while failing",
        description="power or wealth, 1 of that resource per reroll (§3.1)")


class DefenderResponse(Choices):
    """A defender's answer to an army at its gates (§5.2): battle (with a tactic) or defence."""

    response: Literal["battle", "defence"]
    tactic: Tactic | None = None
    characters: list[CharacterId] | Literal["all"] | None = Field(
        None, description='the characters who fight ("all": every unwounded one at home); checked by the rules')
    commander: CharacterId | None = None
    reserve: Count | None = None
    losses: list[LossEntry] | None = Field(None, description=LOSSES_HELP)


BATTLE_OPTION_HELP = (
    "this round (§5.5): joins the battle, +2d6 (a leader +3d6) to the main group or an attacking reserve; field"
    " hospital, 1 (a leader 2) of the enemy's kills become routs; take no prisoners!, 1 (2) of your routs become"
    " kills; back, cowards!, 2 (3) of your routed units return; losses to the reserve first, the side's losses taken"
    " by its reserve first. A general (§5.6): regroup, all routed last round return; fight to the last!, a third"
    " round; epic duel, the enemy leader blocked for the rest of the battle")
"""What each battle option does, in full: the dropdown says it short (``vocabulary.BATTLE_OPTIONS``)."""


class Declaration(Choices):
    """One battle declaration of a round (§5.5-5.7): who uses which option, for which side."""

    model_config = ConfigDict(title="Declaration")

    side: Literal["attacker", "defender"] = Field(description="the side that uses the option (a defecting spy's "
                                                              "option is used by his master's side)")
    character: Annotated[str, Pick("battle_characters", what="a character fighting on that side in this battle",
                                   depends=("side",))] | None = None
    option: Annotated[BattleOption, Pick("battle_options", what="a battle option (§5.5-5.7)", open=True)] = Field(
        description=BATTLE_OPTION_HELP)
    group: Literal["main", "reserve"] | None = None
    target: Annotated[str, Pick("duel_targets", what="the enemy leader in this battle", depends=("side",))] | None = \
        Field(None, description="epic duel: the enemy leader in this battle (§5.6)")
    defect: bool | None = None


class EspionageChoices(Choices):
    """Phase 2 (§6): the owners' answers to failed bribes and double agents' orders, successors' traits."""

    double_agents: dict[OrderKey, bool] = Field(
        default_factory=dict, title="Turn failed bribes into double agents",
        description="each failed bribe, by whom it tried: turned into a double agent or not (§6.4; the target's"
                    " owner decides)")
    double_agent_orders: dict[OrderKey, bool] = Field(
        default_factory=dict, title="Carry out orders given to double agents",
        description="each order given to a double agent, by whom it bribed: carried out or not (§6.4; default:"
                    " not carried out)")
    successor_traits: dict[FactionId, TraitId] = Field(
        default_factory=dict, title="Second trait of a succeeding heir",
        description="each faction's heir's second trait (§6.6; rolled when left out)")
    rulings: list[Ruling] = RULINGS_FIELD


CampaignKey = Annotated[str, Pick("p3_campaigns", what="a campaign that may reach its target this turn")]
BattleKey = Annotated[str, Pick("p3_battles", what="a campaign or battle of this turn")]


class WarChoices(Choices):
    """Phase 3 (§5): defenders' answers and each battle's declarations, round by round."""

    responses: dict[CampaignKey, DefenderResponse] = Field(
        default_factory=dict, title="Defender responses",
        description="each army at a defender's gates: the defender's answer (else its answer to the question, its "
                    "standing instruction, else G-34's default)")
    declarations: dict[BattleKey, dict[RoundKey, list[Declaration]]] = Field(
        default_factory=dict, title="Battle declarations per round",
        description="each campaign's (or battle's) rounds: which characters use which option (§5.5-5.7)")
    rulings: list[Ruling] = RULINGS_FIELD


class GMQuestionOption(Choices):
    """One answer the GM offers, with the effects the GM rules for it."""

    id: str = Field(min_length=1, max_length=64)
    text: str = ""
    effects: list[Effect] = Field(default_factory=list)


class GMQuestion(Choices):
    """A question the GM puts to one faction on a [GM] item (§8.2 council votes and elections, §4.7 coups,
    §4.8 low resources): the faction picks one of the GM's options and its effects are the ruling."""

    faction: PlayerId
    id: str = Field(min_length=1, max_length=64, description="unique this month")
    kind: Literal["council_vote", "elections", "coup", "ruling"] = "ruling"
    text: str = Field(min_length=1)
    options: list[GMQuestionOption] = Field(min_length=1)
    default: str = Field(description="the option that stands if the faction does not answer")


QuestionKey = Annotated[str, Pick("questions", what="a question of this step")]
AnswerKey = Annotated[str, Pick("answers", what="an answer the question offers")]


class UpkeepChoices(Choices):
    """Upkeep (§4.3): whom the statesman cap dismisses first, the GM's questions and their answers, rulings."""

    dismiss: dict[PlayerId, list[StatesmanId]] = Field(
        default_factory=dict, title="Statesmen dismissed for the cap",
        description="each faction's statesmen dismissed first when over the cap (§4.7)")
    questions: list[GMQuestion] = Field(
        default_factory=list, title="Questions to a faction (council votes, elections, ...)",
        description="each faction answers with one of the options; the chosen option's effects are the ruling")
    answers: dict[QuestionKey, AnswerKey] = Field(
        default_factory=dict, title="Answers to the questions",
        description="each question's answer, as the faction gave it (a question left out: its default)")
    rulings: list[Ruling] = RULINGS_FIELD


class FinalChoices(Choices):
    """The final tally (G-40): the formula's winner unless the cardinal's verdict names one."""

    winner: PlayerId | None = Field(None, title="Cardinal's verdict (empty = formula)")
    felmonte: str = Field("", title="The bull on Felmonte")
    verdict: str = Field("", title="Verdict text")


def _camel(fid: str) -> str:
    return "".join(p.capitalize() for p in fid.replace("-", "_").split("_"))


def _model(name: str, doc: str, fields: dict[str, Any]) -> type[Choices]:
    return cast(type[Choices], create_model(name, __base__=Choices, __doc__=doc, **fields))


@cache
def orders_choices(fid: str) -> type[Choices]:
    """The choices of ``orders_<fid>``: its picks list what ``fid`` may name (its own characters, spy
    slots, dilemmas and candidates; public factions and provinces)."""
    name = _camel(fid)
    own: Any = Annotated[str, Pick(f"characters:{fid}", what=f"a character of {fid}")]
    agent: Any = Annotated[str, Pick(f"agents:{fid}", what=f"a statesman of {fid}")]
    slot: Any = Annotated[str, Pick(f"slots:{fid}", what=f"a slot of {fid} (special, ordinary, spy:<agent>)")]
    leader: Any = Annotated[str, Pick(f"leaders:{fid}", what=f"a character who may lead {fid}'s action")]
    target: Any = Annotated[str, Pick(f"targets:{fid}", what="a target of this action", depends=("action",))]
    dilemma: Any = Annotated[str, Pick(f"dilemmas:{fid}", what=f"a dilemma dealt to {fid}")]
    dilemma_option: Any = Annotated[str, Pick(f"dilemma_options:{fid}", what="an option of the dilemma, or abstain")]
    candidate: Any = Annotated[str, Pick(f"candidates:{fid}", what=f"a statesman offered to {fid} this month")]
    opt: Any = Optional
    params = _model(f"{name}OrderParams", f"Parameters of one of {fid}'s orders (by action).", {
        "units": (opt[int], Field(None, ge=1, le=LIMIT, description="war: units sent; hire_troops: units hired")),
        "characters": (opt[list[own]], Field(None, description="war, sally: characters who go")),
        "commander": (opt[own], Field(None, description="war: the commander")),
        "tactic": (opt[Tactic], Field(None, description="war, sally: the tactic (§5.4; default hold)")),
        "reserve": (opt[Count], Field(None, description="war, sally: units held in reserve (§5.4)")),
        "if_defence": (opt[Literal["storm", "siege"]],
                       Field(None, description="war: if the defender shuts the gates (§5.2)")),
        "field": (opt[Resource], Field(None, description="scouts at low stake: the resource learned (§6.1)")),
        "agent": (opt[agent], Field(None, description="spy: the statesman sent (§6.2)")),
        "wealth": (opt[int], Field(None, ge=1, le=LIMIT,
                                   description="bribery, felmonte_offer, support: wealth invested")),
        "on_success": (opt[Literal["spy", "defect"]], Field(None, description="bribery: what a success makes (§6.3)")),
        "kill_leader": (opt[bool], Field(None, description="assassination: aim to kill the leader (10+, §6.5)")),
        "against": (opt[FactionId], Field(None, description="turn_against, military_aid: the faction aimed at")),
        "piety": (opt[int], Field(None, ge=1, le=LIMIT, description="donation: piety bought (§4.1 A5b)")),
        "order": (opt[str], Field(None, description="support: the id of the supported order of these orders")),
        "option": (opt[str], Field(None, description="dilemma: the option chosen")),
        "terms": (opt[str], Field(None, description="player_treaty: the terms, in the players' words (both sides "
                                                    "must order the same text; the rules leave them to the players)")),
    })
    order: Any = _model(f"{name}Order", f"One of {fid}'s sealed orders (§11.2 OrdersSubmitted.orders[]).", {
        "id": (opt[str], Field(None, title="Name", description="what another order calls it (support; default"
                                                              " O1, O2, ...)")),
        "faction": (opt[PlayerId], Field(None, description=f"the faction giving it ({fid}; §1.3)")),
        "action": (Annotated[Action, Pick("actions", what="an action (§4.1)")], ...),
        "slots": (list[slot], Field(default_factory=lambda: ["ordinary"],
                                    description="the action slots committed (§3.2)")),
        "stake": (Stake, "low"),
        "leader": (opt[leader], Field(None, description="the character leading it (§3.4)")),
        "target": (opt[target], Field(None, description="a faction, province, dilemma or candidate (by action); a "
                                                         "rival character for bribery and assassination (checked "
                                                         "by the rules)")),
        "params": (opt[params], Field(None, title="Details")),
    })
    response = _model(f"{name}Response", f"{fid}'s standing answer to an attack (§5.2, G-34).", {
        "response": (Literal["battle", "defence"], ...),
        "tactic": (opt[Tactic], None),
        "characters": (opt[list[own] | Literal["all"]], None),
        "commander": (opt[own], None),
        "reserve": (opt[Count], None),
        "losses": (opt[list[LossEntry]], Field(None, description=LOSSES_HELP)),
    })
    standing = _model(f"{name}Standing", f"{fid}'s standing instructions.", {
        "response": (opt[response], None),
        "losses": (opt[list[LossEntry]], Field(None, description=LOSSES_HELP + "; for every battle this month")),
    })
    return _model(f"{name}OrdersChoices", f"{fid}'s sealed orders (§4.3): visible to {fid} and the GM only.", {
        "actor": (PlayerId, Field(fid, title="Faction giving these orders")),
        "orders": (list[order], Field(default_factory=list, title="Orders",
                                      description="the sealed orders, each with its action, slots, stake, leader, "
                                                  "target and params")),
        "dilemmas": (dict[dilemma, dilemma_option], Field(
            default_factory=dict, title="Dilemma choices",
            description="the option chosen for each dilemma, or abstain (§4.1 A7); an option chosen without a "
                        "dilemma order takes one slot")),
        "candidates": (dict[candidate, Literal["hire", "pass"]], Field(
            default_factory=dict, title="Statesmen on offer",
            description="each candidate: hire him (an order hiring a statesman, one slot and his cost in wealth,"
                        " §4.6) or pass")),
        "standing": (opt[standing], Field(None, title="Standing instructions")),
    })
