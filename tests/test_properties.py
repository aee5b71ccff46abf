"""Properties of the side-bet settlement that must hold for every deal (hypothesis)."""


from hypothesis import given, settings
from hypothesis import strategies as st

from rules.cards import ALL_CARDS, SUITS, Card
from rules.match_the_dealer import match_the_dealer_payout
from rules.profile import TableProfile
from rules.settle import SeatHand, settle_round

cards = st.sampled_from(ALL_CARDS)
wagers = st.integers(min_value=1, max_value=500)
profiles = st.sampled_from([TableProfile(game="blackjack", decks=6, bonus_payout={"1": 15, "5": 75}),
                            TableProfile(game="blackjack", decks=8, bonus_payout={"1": 18, "5": 90}),
                            TableProfile(game="spanish21", decks=6), TableProfile(game="spanish21", decks=8)])
suit_maps = st.permutations(SUITS).map(lambda p: dict(zip(SUITS, p)))


@settings(max_examples=300, deadline=None)
@given(profiles, cards, cards, cards, wagers, st.sampled_from([1, 5]))
def test_payouts_are_never_negative(profile, up, a, b, mtd, bonus):
    r = settle_round(profile, up, [SeatHand(1, (a, b), {"main": 500, "mtd": mtd, "bonus": bonus})])
    for res in (r.seats[0].mtd, r.seats[0].bonus):
        assert res.payout is None or res.payout >= 0


@settings(max_examples=300, deadline=None)
@given(profiles, cards, cards, cards, wagers, suit_maps)
def test_swapping_suits_consistently_changes_nothing(profile, up, a, b, mtd, sm):
    swap = lambda c: Card(c.rank, sm[c.suit])  # noqa: E731
    seat = lambda x, y: [SeatHand(1, (x, y), {"main": 500, "mtd": mtd, "bonus": 1})]  # noqa: E731
    r1 = settle_round(profile, up, seat(a, b))
    r2 = settle_round(profile, swap(up), seat(swap(a), swap(b)))
    for k in ("mtd", "bonus"):
        x, y = r1.seats[0].result(k), r2.seats[0].result(k)
        assert (x.outcome, x.payout) == (y.outcome, y.payout)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["10", "J", "Q", "K"]), st.sampled_from(["10", "J", "Q", "K"]),
       st.sampled_from(SUITS), st.sampled_from(SUITS), cards)
def test_a_ten_value_card_never_matches_a_different_ten_value_rank(up_rank, card_rank, s1, s2, other):
    if up_rank == card_rank or other.rank == up_rank:
        return
    r = match_the_dealer_payout(Card(up_rank, s1), [Card(card_rank, s2), other],
                                5, TableProfile(game="blackjack", decks=6).effective_mtd_odds())
    assert r.outcome == "lose"


@settings(max_examples=300, deadline=None)
@given(profiles, st.sampled_from(ALL_CARDS), suit_maps, suit_maps, wagers)
def test_two_match_payout_is_the_sum_of_the_one_match_payouts(profile, up, m1, m2, wager):
    odds = profile.effective_mtd_odds()
    a, b = Card(up.rank, m1[up.suit]), Card(up.rank, m2[up.suit])
    filler = next(c for c in ALL_CARDS if c.rank != up.rank)
    both = match_the_dealer_payout(up, [a, b], wager, odds).payout
    one_a = match_the_dealer_payout(up, [a, filler], wager, odds).payout
    one_b = match_the_dealer_payout(up, [filler, b], wager, odds).payout
    assert both == one_a + one_b
