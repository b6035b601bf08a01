// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SpendingLimit} from "../lib/VaultTypes.sol";
import {VaultStorage} from "./VaultStorage.sol";

/// @title VaultBuckets
/// @notice The owner's spend windows as token buckets the vault itself enforces: each spending
/// limit of `amount` USD per `windowSeconds` (a bot's, the vault-wide ones, a bot's swap volume
/// limit) is a bucket of capacity `amount`, refilled continuously at `amount` per `windowSeconds`,
/// debited by what executes. One packed word per bucket:
///
///   bits   0-95   level, in USD units (6 decimals) times windowSeconds: exact, no rounding
///   bits  96-159  cap: the limit's amount (< 2^64)
///   bits 160-191  window: the limit's windowSeconds (< 2^32)
///   bits 192-231  updated: the block timestamp the level was computed at
///   bit  255      more: the next bucket of the same list is live too
///
/// Refill is cap × elapsed seconds, added to a level kept in units of 1/window USD unit, so the
/// arithmetic is exact: a bucket holds exactly min(cap, level + cap·t/W) with no rounding. Then a
/// sequence of spends that a rolling window of `amount` per `windowSeconds` allows at the times they
/// execute never empties the bucket below what it asks (docs/design.md, "Spend windows on-chain"),
/// and over any span T the spends the bucket lets through total at most amount + amount·T/W.
/// A limit with amount 0 (a count-only limit, which the relayer scans rather than refuses) or
/// windowSeconds 0 is no bucket. A list's buckets are packed from index 0; the first empty word ends it.
abstract contract VaultBuckets is VaultStorage {
    error ExceedsSpendWindow(address scope, uint256 windowSeconds, uint256 usd, uint256 available);
    error InvalidSpendingLimit(uint256 amount, uint256 windowSeconds);

    uint256 internal constant LEVEL_MASK = (1 << 96) - 1;
    uint256 internal constant MORE = 1 << 255;

    /// @dev A bucket's word brought to now: its level, cap and window.
    function _refilled(uint256 word) internal view returns (uint256 level, uint256 cap, uint256 window) {
        level = word & LEVEL_MASK;
        cap = uint64(word >> 96);
        window = uint32(word >> 160);
        uint256 updated = uint40(word >> 192);
        // Unchecked: cap < 2^64, window < 2^32, elapsed < 2^40 and level < 2^96, so nothing here
        // comes near 2^256.
        unchecked {
            uint256 full = cap * window;
            if (block.timestamp > updated) {
                level += cap * (block.timestamp - updated);
                if (level > full) level = full;
            }
        }
    }

    /// @dev Takes `usd` from every live bucket of `list`, whose first word the caller read as
    /// `word` (`scope` names the list in the refusal: the bot, or the vault's own address for the
    /// vault-wide list), or reverts ExceedsSpendWindow with the first bucket short of it.
    function _drain(uint256[5] storage list, uint256 word, address scope, uint256 usd) internal {
        for (uint256 k; word != 0; ) {
            list[k] = _taken(word, scope, usd);
            if (word & MORE == 0 || ++k == 5) return;
            word = list[k];
        }
    }

    /// @dev `word` with `usd` taken at this block, or the refusal.
    function _taken(uint256 word, address scope, uint256 usd) internal view returns (uint256) {
        (uint256 level, uint256 cap, uint256 window) = _refilled(word);
        // `taken` can wrap only when usd > cap, which is refused whatever it is; else usd <= cap < 2^64
        // and window < 2^32, exact; and taken <= level below.
        unchecked {
            uint256 taken = usd * window;
            if (usd > cap || taken > level) revert ExceedsSpendWindow(scope, window, usd, level / window);
            return (word & ~(LEVEL_MASK | (uint256(type(uint40).max) << 192))) | (level - taken)
                | (block.timestamp << 192);
        }
    }

    /// @dev A fresh bucket word for `limit` (0 when the limit is no bucket), its level carried from
    /// the current bucket of the same window in `old` (never above the new cap: an owner's change
    /// never refills), full when none has that window.
    function _bucketFor(SpendingLimit calldata limit, uint256[5] memory old) internal view returns (uint256) {
        uint256 amount = limit.amount;
        uint256 window = limit.windowSeconds;
        if (amount == 0 || window == 0) return 0;
        if (amount > type(uint64).max || window > type(uint32).max) revert InvalidSpendingLimit(amount, window);
        uint256 level = amount * window;
        for (uint256 j; j < 5 && old[j] != 0; ++j) {
            (uint256 was, , uint256 oldWindow) = _refilled(old[j]);
            if (oldWindow == window) {
                if (was < level) level = was;
                break;
            }
        }
        return level | (amount << 96) | (window << 160) | (block.timestamp << 192);
    }

    /// @dev Replaces the buckets of `list` with those of `limits` (at most 5, checked by the caller).
    function _setBuckets(uint256[5] storage list, SpendingLimit[] calldata limits) internal {
        uint256[5] memory old = list;
        uint256[5] memory next;
        uint256 m;
        for (uint256 i; i < limits.length; ++i) {
            uint256 word = _bucketFor(limits[i], old);
            if (word == 0) continue;
            if (m > 0) next[m - 1] |= MORE;
            next[m++] = word;
        }
        for (uint256 k; k < 5; ++k) if (list[k] != next[k]) list[k] = next[k];
    }

    /// @dev A swap volume limit's single bucket: as _setBuckets for a list of one.
    function _setSwapBucket(address bot, uint256 amount, uint256 windowSeconds) internal {
        uint256 word;
        if (amount != 0 && windowSeconds != 0) {
            if (amount > type(uint64).max || windowSeconds > type(uint32).max) {
                revert InvalidSpendingLimit(amount, windowSeconds);
            }
            uint256 level = amount * windowSeconds;
            uint256 current = _swapBuckets[bot];
            if (current != 0) {
                (uint256 was, , uint256 oldWindow) = _refilled(current);
                if (oldWindow == windowSeconds && was < level) level = was;
            }
            word = level | (amount << 96) | (windowSeconds << 160) | (block.timestamp << 192);
        }
        _swapBuckets[bot] = word;
    }

    /// @dev What a list lets through now: per live bucket, its window, cap, the USD it would take
    /// (level / window, rounded down: a spend of at most that passes) and its exact level (in units
    /// of 1/window USD unit, for a reader that brings it to a later time: + cap per second, at most
    /// cap × window).
    function _available(uint256[5] storage list) internal view returns (uint256[4][] memory out) {
        uint256 n;
        while (n < 5 && list[n] != 0) ++n;
        out = new uint256[4][](n);
        for (uint256 k; k < n; ++k) out[k] = _availableOf(list[k]);
    }

    function _availableOf(uint256 word) internal view returns (uint256[4] memory) {
        (uint256 level, uint256 cap, uint256 window) = _refilled(word);
        return [window, cap, window == 0 ? 0 : level / window, level];
    }
}
