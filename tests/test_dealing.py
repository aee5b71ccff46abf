"""Dealing order: Switch Hands 13:69F-2B.6(c)-(d), and the standard order of rules.md §2.6."""

from rules.dealing import DealEvent, check_dealing_order, check_observed_deal, expected_deal_order

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


# -- the same checks on a deal seen by a camera, which may miss a face-down card ---------------------------------


def test_camera_deal_passes_over_a_hole_card_hidden_under_the_up_card():
    events = expected_deal_order("standard", [1, 3])[:-1]  # the hole card never seen
    assert check_observed_deal(events, [1, 3], "standard") is None


def test_camera_deal_takes_a_hole_card_first_seen_turned_over_as_the_hole_card():
    events = expected_deal_order("standard", [1])[:-1] + [DealEvent("dealer", UP)]
    assert check_observed_deal(events, [1], "standard") is None


def test_camera_deal_passes_over_a_face_down_pair_squared_on_the_first_2b_6_d():
    events = expected_deal_order("switch_hands", [3, 6])
    seen = events[:2] + events[4:]  # the second face-down card of each seat lies on the first
    assert check_observed_deal(seen, [3, 6], "switch_hands") is None


def test_camera_deal_reports_a_face_up_card_dealt_before_the_last_face_down_one_2b_6_d():
    events = expected_deal_order("switch_hands", [3, 6])
    bad = events[:3] + [events[4], events[3]] + events[5:]  # 3:up before 6:down
    v = check_observed_deal(bad, [3, 6], "switch_hands")
    assert (v.step, v.recipient, v.rule) == (3, 3, "13:69F-2B.6(d)")
    strict = check_dealing_order(bad, [3, 6], "switch_hands")
    assert (v.step, v.recipient, v.expected) == (strict.step, strict.recipient, strict.expected)


def test_camera_deal_reports_swapped_face_down_cards_on_the_first_of_them():
    events = expected_deal_order("switch_hands", [1, 3])
    bad = [events[1], events[0]] + events[2:]
    v = check_observed_deal(bad, [1, 3], "switch_hands")
    assert (v.step, v.recipient, v.expected) == (0, 3, DealEvent(1, DOWN))


def test_camera_deal_never_passes_over_a_face_up_card():
    events = expected_deal_order("standard", [1, 3])
    bad = [events[0], events[2]] + events[1:2] + events[3:]  # the up card before seat 3's first card
    v = check_observed_deal(bad, [1, 3], "standard")
    assert (v.step, v.recipient, v.expected) == (1, "dealer", DealEvent(3, UP))


def test_camera_deal_cannot_tell_a_missing_burn_card_from_an_unseen_one():
    events = expected_deal_order("switch_hands", [1], burn=True)[1:]
    assert check_observed_deal(events, [1], "switch_hands", burn_expected=True) is None


def test_camera_watching_the_discard_rack_reports_a_deal_without_its_burn_card_2b_6_c():
    """2B.6(c): a new shoe's first card is burnt. A camera that sees the discard rack sees it go in, so a deal
    whose first card goes to seat 1 is missing it."""
    events = expected_deal_order("switch_hands", [1], burn=True)[1:]
    v = check_observed_deal(events, [1], "switch_hands", burn_expected=True, burn_in_view=True)
    assert (v.step, v.recipient, v.expected, v.rule) == (0, 1, DealEvent("burn", DOWN), "13:69F-2B.6(c)")


def test_camera_watching_the_discard_rack_passes_a_deal_that_burnt_its_first_card_2b_6_c():
    events = expected_deal_order("switch_hands", [1, 4], burn=True)
    assert check_observed_deal(events, [1, 4], "switch_hands", burn_expected=True, burn_in_view=True) is None


def test_camera_watching_the_discard_rack_still_passes_over_a_hidden_face_down_pair_card_2b_6_d():
    events = expected_deal_order("switch_hands", [1], burn=True)
    seen = [events[0]] + events[2:]  # the second face-down card squared on the first, unseen
    assert check_observed_deal(seen, [1], "switch_hands", burn_expected=True, burn_in_view=True) is None


def test_switch_hands_a_missed_first_face_down_card_is_not_a_late_card_2b_6():
    """2B.6(b), (c): each player gets two face-down cards. The camera misses seat 3's first: the face-down card it
    then sees at seat 3, after seats 4 and 5, is its second, due there, not the first come late."""
    seen = [DealEvent(4, False), DealEvent(5, False), DealEvent(3, False), DealEvent(4, False)]
    assert check_observed_deal(seen, [3, 4, 5], "switch_hands") is None
