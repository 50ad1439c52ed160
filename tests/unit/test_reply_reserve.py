"""The reply's reserve (agent/settings.py context_config): what fills the working window never leaves less
than the request's max_tokens within the model's own window (prompt + max_tokens over it is a 400 on
models with extended thinking), and never less than the usual tenth of the window."""

from hypothesis import given, settings, strategies as st

from agentls.agent.settings import context_config, parse_settings
from agentls.model.catalog import ModelInfo
from agentls.model.request import reply_tokens_asked

THINKING = st.sampled_from([frozenset({"adaptive"}), frozenset({"enabled", "disabled"}), frozenset()])


@settings(max_examples=300, deadline=None)
@given(model_window=st.integers(8_000, 1_000_000), max_output=st.integers(1_000, 128_000), thinking=THINKING,
       max_tokens=st.none() | st.integers(1, 200_000), window=st.none() | st.integers(4_000, 1_000_000),
       mode=st.sampled_from(["auto", "off", "high"]))
def test_the_usable_window_leaves_the_replys_room_in_the_models_window(model_window, max_output, thinking,
                                                                        max_tokens, window, mode):
    raw = {"thinking": mode, **({"maxTokens": max_tokens} if max_tokens else {}),
           **({"contextWindow": window} if window else {})}
    parsed, problems = parse_settings(raw)
    assert problems == []
    info = ModelInfo("acme-any", max_input_tokens=model_window, max_tokens=max_output, thinking_types=thinking)
    config = context_config(parsed, info)
    asked = reply_tokens_asked(parsed.max_tokens or 8_192, info, mode)
    assert config.reserve >= min(config.window // 10, 32_000)
    if config.reserve < config.window // 2:  # not capped: a reply that takes half the working window is the user's
        assert config.effective_window + asked <= model_window


def test_the_users_reserve_is_kept_and_an_unknown_model_keeps_the_tenth():
    info = ModelInfo("acme-any", max_input_tokens=32_000, max_tokens=16_000)
    assert context_config(parse_settings({"outputReserve": 1_000})[0], info).reserve == 1_000
    assert context_config(parse_settings({"maxTokens": 16_000})[0], None).reserve == 20_000
    # a 200K model with the default 8,192-token replies: the tenth (20K) holds them already
    assert context_config(parse_settings({})[0], ModelInfo("x", max_input_tokens=200_000)).reserve == 20_000
    # asking for 64K replies on a 200K window: 64K of room
    assert context_config(parse_settings({"maxTokens": 64_000})[0],
                          ModelInfo("x", max_input_tokens=200_000, max_tokens=128_000)).reserve == 64_000
