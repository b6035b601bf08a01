// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPriceFeed} from "../interfaces/IPriceFeed.sol";

/// @title MockPriceFeed
/// @notice Chainlink-style feed whose price anyone may set. Its answer is always as fresh as the
/// block reading it (devnet time travel never makes it stale), unless pinned by setUpdatedAt.
contract MockPriceFeed is IPriceFeed {
    uint8 private immutable _decimals;
    string private _description;
    uint80 private _roundId;
    int256 private _answer;
    uint256 private _pinnedUpdatedAt;

    event PriceSet(uint80 indexed roundId, int256 answer);

    constructor(uint8 decimals_, int256 initialAnswer, string memory description_) {
        _decimals = decimals_;
        _description = description_;
        _set(initialAnswer);
    }

    /// @notice Publishes a new answer as a new round.
    function setPrice(int256 answer) external {
        _set(answer);
    }

    function _set(int256 answer) private {
        _roundId += 1;
        _answer = answer;
        emit PriceSet(_roundId, answer);
    }

    /// @notice Pins the reported updatedAt to `t` (0 unpins: report the reading block's timestamp).
    function setUpdatedAt(uint256 t) external {
        _pinnedUpdatedAt = t;
    }

    /// @notice The latest round.
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        uint256 at = _pinnedUpdatedAt == 0 ? block.timestamp : _pinnedUpdatedAt;
        return (_roundId, _answer, at, at, _roundId);
    }

    /// @notice Decimals of the answer.
    function decimals() external view returns (uint8) {
        return _decimals;
    }

    /// @notice Human-readable pair, e.g. "ETH / USD".
    function description() external view returns (string memory) {
        return _description;
    }

    /// @notice Aggregator version.
    function version() external pure returns (uint256) {
        return 4;
    }
}
