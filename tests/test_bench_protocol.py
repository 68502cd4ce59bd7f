"""The bench's protocol client reads widgets as the browser does (bench/protocol.py)."""

from streamlit.proto.Slider_pb2 import Slider

from bench.protocol import _widget_of


def select_slider(options: list[str], default: list[float], value: list[str] | None = None) -> Slider:
    """A select_slider's proto as Streamlit 1.67 sends it: option indices as doubles."""
    proto = Slider(id="$$ID-abc-d_k_pick", type=Slider.SELECT_SLIDER, data_type=Slider.INT, options=options)
    proto.default[:] = default
    if value is not None:
        proto.raw_value[:] = value
        proto.set_value = True
    return proto


def test_a_select_slider_starts_on_its_default_option():
    w = _widget_of("slider", select_slider(["2", "8", "32", "128"], [2.0]))
    assert (w.field, w.default, w.value, w.key) == ("string_array_value", ["32"], ["32"], "d_k_pick")


def test_a_select_slider_the_server_set_sends_the_set_options():
    w = _widget_of("slider", select_slider(["a", "b", "c"], [0.0, 1.0], value=["b", "c"]))
    assert (w.default, w.value) == (["a", "b"], ["b", "c"])


def test_a_plain_slider_keeps_its_numbers():
    proto = Slider(id="$$ID-abc-d_k", type=Slider.SLIDER, data_type=Slider.INT)
    proto.default[:] = [4.0]
    w = _widget_of("slider", proto)
    assert (w.field, w.default, w.value) == ("double_array_value", [4.0], [4.0])


def test_an_expander_nobody_touched_sends_no_state_as_in_chromium():
    from streamlit.proto.Block_pb2 import Block

    w = _widget_of("expandable", Block.Expandable(id="$$ID-abc-share_open", expanded=False))
    assert (w.field, w.default, w.value) == ("bool_value", False, None)  # Client._rerun leaves out None
