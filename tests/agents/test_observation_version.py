"""The observation as a versioned contract (billiards_env.observation: ``OBS_VERSION``, ``GROUPS``)
and the learned agent's sidecar that stores it: the fingerprint of each version is pinned, a
saved model keeps its version, and a model trained on another observation is refused with both
layouts named. Runs on the shipped three-cushion model (no training here).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from agents.learned import UNVERSIONED_OBSERVATION, LearnedAgent, model_paths
from billiards_env import observation

SHIPPED = Path(__file__).resolve().parents[2] / "docs" / "models" / "three_cushion_ppo.zip"
# The fingerprint of every observation version there has been. A change of the groups changes the
# fingerprint: then OBS_VERSION must be bumped and the new version's fingerprint added here.
FINGERPRINTS = {1: "a0f0ceb24ced"}
VERSION_1 = "version 1 with groups balls 6, pin 5, frozen 7, choices 5, score 5, counters 5, turn 5"

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def copy_with_sidecar(tmp_path, edit):
    """The shipped model copied to tmp_path with its sidecar passed through ``edit(meta)``."""
    zip_path = tmp_path / "model.zip"
    shutil.copy(SHIPPED, zip_path)
    meta = json.loads(Path(model_paths(SHIPPED)[1]).read_text())
    edit(meta)
    Path(model_paths(zip_path)[1]).write_text(json.dumps(meta))
    return zip_path


def test_the_groups_of_each_observation_version_are_pinned_by_their_fingerprint():
    assert observation.fingerprint() == FINGERPRINTS[observation.OBS_VERSION], (
        "the observation groups changed: bump OBS_VERSION and record the new fingerprint")
    assert observation.OBS_SIZE == sum(size for _, size in observation.layout()["groups"])
    # every change of the layout shows in the fingerprint
    groups = list(observation.GROUPS)
    renamed = [("ball", 6, 1.0)] + groups[1:]
    resized = [("balls", 8, 1.0)] + groups[1:]
    reordered = [groups[1], groups[0]] + groups[2:]
    added = groups + [("spin", 3, 1.0)]
    prints = {observation.fingerprint(g) for g in (renamed, resized, reordered, added)}
    assert len(prints) == 4 and observation.fingerprint() not in prints


def test_the_shipped_sidecar_states_observation_version_1():
    meta = json.loads(Path(model_paths(SHIPPED)[1]).read_text())
    assert meta["observation"] == {**UNVERSIONED_OBSERVATION, "fingerprint": FINGERPRINTS[1]}
    assert observation.describe(meta["observation"]) == VERSION_1


def test_a_saved_model_keeps_the_observation_version(tmp_path):
    agent = LearnedAgent.load(SHIPPED)
    _, json_path = agent.save(tmp_path / "again.zip")
    stored = json.loads(Path(json_path).read_text())["observation"]
    assert stored == observation.layout() == {"version": observation.OBS_VERSION, "groups": [
        [name, size] for name, size, _ in observation.GROUPS], "fingerprint": FINGERPRINTS[observation.OBS_VERSION]}
    loaded = LearnedAgent.load(tmp_path / "again.zip")
    obs = np.random.default_rng(0).uniform(0.0, 1.0, (4, observation.OBS_SIZE)).astype(np.float32)
    np.testing.assert_array_equal(loaded.act(obs), agent.act(obs))


def test_a_model_of_another_observation_version_is_refused_naming_both(tmp_path):
    path = copy_with_sidecar(tmp_path, lambda meta: meta["observation"].update(version=2))
    with pytest.raises(ValueError) as error:
        LearnedAgent.load(path)
    message = str(error.value)
    assert "this model was trained on observation version 2 with groups balls 6, pin 5," in message
    assert f"this build observes {VERSION_1}" in message


def test_a_model_of_other_groups_is_refused_naming_both(tmp_path):
    def add_group(meta):
        meta["observation"]["groups"].append(["spin", 3])
        del meta["observation"]["fingerprint"]

    with pytest.raises(ValueError) as error:
        LearnedAgent.load(copy_with_sidecar(tmp_path, add_group))
    message = str(error.value)
    assert "trained on observation version 1 with groups balls 6, pin 5, frozen 7, choices 5, score 5, " \
           "counters 5, turn 5, spin 3; this build observes " + VERSION_1 in message


def test_a_sidecar_without_an_observation_entry_is_read_as_version_1(tmp_path, monkeypatch):
    path = copy_with_sidecar(tmp_path, lambda meta: meta.pop("observation"))
    assert LearnedAgent.load(path).discipline == "three_cushion"  # this build observes version 1
    # a build with another observation refuses it, naming version 1's groups
    monkeypatch.setattr(observation, "OBS_VERSION", 2)
    monkeypatch.setattr(observation, "GROUPS", observation.GROUPS + (("spin", 3, 1.0),))
    with pytest.raises(ValueError, match=f"trained on observation {VERSION_1}; this build observes version 2 "
                                         "with groups balls 6, .*, turn 5, spin 3"):
        LearnedAgent.load(path)


@pytest.mark.parametrize("entry", [[["balls", 6]], {"version": 1}, {"version": 1, "groups": [["balls", "6"]]},
                                   {**UNVERSIONED_OBSERVATION, "fingerprint": "000000000000"}])
def test_a_malformed_observation_entry_is_refused(tmp_path, entry):
    with pytest.raises(ValueError, match="malformed observation entry"):
        LearnedAgent.load(copy_with_sidecar(tmp_path, lambda meta: meta.update(observation=entry)))


def test_the_shipped_model_plays_this_action_mapping_and_an_older_one_is_refused(tmp_path):
    # the action's version is stored beside the observation's: a policy trained when the elevation
    # spanned the whole component (version 1, no "action" entry) would play raised cues where it
    # meant level ones, so it is refused with a word on what changed
    from billiards_env import actions

    meta = json.loads(Path(model_paths(SHIPPED)[1]).read_text())
    assert meta["action"] == actions.ACTION_VERSION == 2
    assert LearnedAgent.load(SHIPPED).sidecar()["action"] == actions.ACTION_VERSION
    old = copy_with_sidecar(tmp_path, lambda m: m.pop("action"))
    with pytest.raises(ValueError, match="trained on action version 1 .* Retrain it"):
        LearnedAgent.load(old)
