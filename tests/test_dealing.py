"""Dealing order: Switch Hands 13:69F-2B.6(c)-(d), and the standard order of rules.md §2.6."""

from rules.dealing import DealEvent, check_dealing_order, expected_deal_order

UP, DOWN = True, False


def test_switch_hands_order_2b_6_d():
    got = [str(e) for e in expected_deal_order("switch_hands", [2, 5])]
    assert got == ["2:down", "5:down", "2:down", "5:down", "2:up", "5:up", "dealer:up", "2:up", "5:up", "dealer:down"]


def test_burn_card_first_after_a_new_shoe_2b_6_c():
    assert expected_deal_order("switch_hands", [1], burn=True)[0] == DealEvent("burn", DOWN)
    events = expected_deal_order("switch_hands", [1])
    v = check_dealing_order(events, [1], "switch_hands", burn_expected=True)
    assert v.step == 0 and v.rule == "13:69F-2B.6(c)"


def test_a_correct_deal_has_no_violation():
    events = expected_deal_order("switch_hands", [1, 4, 7], burn=True)
    assert check_dealing_order(events, [1, 4, 7], "switch_hands", burn_expected=True, complete=True) is None


def test_hole_card_before_the_last_player_card_is_reported_at_that_step():
    events = expected_deal_order("switch_hands", [1, 2])
    bad = events[:-2] + [events[-1], events[-2]]
    v = check_dealing_order(bad, [1, 2], "switch_hands")
    assert (v.step, v.recipient, v.rule) == (8, "dealer", "13:69F-2B.6(d)")


def test_seat_skipped_is_reported_on_the_card_that_went_to_the_wrong_seat():
    v = check_dealing_order([DealEvent(3, UP)], [1, 3], "standard")
    assert (v.step, v.recipient, v.expected) == (0, 3, DealEvent(1, UP))


def test_standard_order_up_card_after_first_round_hole_card_last():
    got = [str(e) for e in expected_deal_order("standard", [3, 1])]
    assert got == ["1:up", "3:up", "dealer:up", "1:up", "3:up", "dealer:down"]


def test_incomplete_deal_is_only_a_violation_when_the_deal_is_over():
    events = expected_deal_order("standard", [1])[:2]
    assert check_dealing_order(events, [1], "standard") is None
    assert check_dealing_order(events, [1], "standard", complete=True).observed is None
