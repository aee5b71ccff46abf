"""Table profile validation: what the rules forbid a table to offer (13:69F-2.2, 2.20, 2.23, 19.6)."""

import pytest

from rules.profile import ProfileError, TableProfile, load_profile, profile_from_yaml


def rules_of(profile):
    return [v.rule for v in profile.config_violations()]


def test_match_the_dealer_only_with_six_or_eight_decks_2_2_a_4():
    assert rules_of(TableProfile(game="blackjack", decks=4, side_bets=["mtd"])) == ["13:69F-2.2(a)4"]
    assert rules_of(TableProfile(game="blackjack", decks=6, side_bets=["mtd"])) == []


def test_spanish21_match_the_dealer_odds_exist_only_for_six_or_eight_decks_19_6_e():
    assert rules_of(TableProfile(game="spanish21", decks=4, side_bets=["mtd"])) == ["13:69F-19.6(e)"]


def test_not_beside_the_optional_bonus_or_in_between_wager_2_23_g():
    for section in ("2.25", "2.26"):
        p = TableProfile(game="blackjack", decks=6, side_bets=["mtd"], other_wagers=[section])
        assert rules_of(p) == ["13:69F-2.23(g)"]


def test_the_2_17_additional_wagers_are_compatible():
    assert rules_of(TableProfile(game="blackjack", decks=8, side_bets=["mtd"], other_wagers=["2.17"])) == []


@pytest.mark.parametrize("decks,odds", [(6, (3, 11)), (8, (4, 11)), (6, (3, 14))])
def test_posted_odds_below_the_minimum_for_the_actual_shoe_2_23_f(decks, odds):
    p = TableProfile(game="blackjack", decks=decks, mtd_odds={"unsuited": odds[0], "suited": odds[1]})
    assert rules_of(p) == ["13:69F-2.23(f)"]


def test_spanish_eight_deck_table_posting_the_six_deck_paytable_19_6_e():
    p = TableProfile(game="spanish21", decks=8, mtd_odds={"unsuited": 4, "suited": 9})
    assert rules_of(p) == ["13:69F-19.6(e)"]


def test_bonus_payout_above_the_cap_2_20_j():
    p = TableProfile(game="blackjack", decks=6, bonus_payout={"5": 6000})
    assert "13:69F-2.20(j)" in rules_of(p)


def test_a_side_bet_nobody_posts_or_wagers_is_not_checked():
    assert rules_of(TableProfile(game="blackjack", decks=4)) == []


def test_side_bets_are_not_authorised_at_switch_hands_tables():
    p = TableProfile(game="switch_hands", decks=6, side_bets=["mtd", "bonus"])
    assert rules_of(p) == ["13:69F-2.23(a)", "13:69F-2.20(a)"]


def test_malformed_profiles_are_clear_errors():
    with pytest.raises(ProfileError, match="game"):
        load_profile({"game": "poker", "decks": 6})
    with pytest.raises(ProfileError, match="decks"):
        load_profile({"game": "blackjack", "decks": 0})
    with pytest.raises(ProfileError, match="not valid YAML"):
        profile_from_yaml("game: [blackjack")


def test_yaml_profile():
    p = profile_from_yaml("game: blackjack\ndecks: 8\nside_bets: [mtd, bonus]\nbonus_payout: {1: 15, 5: 75}\n")
    assert p.effective_mtd_odds().suited == 14
    assert p.config_violations() == []
