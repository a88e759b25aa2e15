"""Oracle integration layer for task-semver: upstream semver 3.0.2 tests, merged.

Copied from the semver 3.0.2 sdist (BSD-3-Clause, see LICENSE.txt next to this file);
only imports were hoisted and duplicate test names suffixed with their source file.
"""

import pytest
from semver import match
from semver import max_ver, min_ver
from semver import Version


# --- from upstream tests/test_match.py (semver 3.0.2, BSD-3-Clause) ---

def test_should_match_simple():
    assert match("2.3.7", ">=2.3.6") is True


def test_should_no_match_simple():
    assert match("2.3.7", ">=2.3.8") is False


@pytest.mark.parametrize(
    "left,right,expected",
    [
        ("2.3.7", "!=2.3.8", True),
        ("2.3.7", "!=2.3.6", True),
        ("2.3.7", "!=2.3.7", False),
    ],
)
def test_should_match_not_equal(left, right, expected):
    assert match(left, right) is expected


@pytest.mark.parametrize(
    "left,right,expected",
    [
        ("2.3.7", "2.3.7", True),
        ("2.3.6", "2.3.6", True),
        ("2.3.7", "4.3.7", False),
    ],
)
def test_should_match_equal_by_default(left, right, expected):
    assert match(left, right) is expected


@pytest.mark.parametrize(
    "left,right,expected",
    [
        ("2.3.7", "<2.4.0", True),
        ("2.3.7", ">2.3.5", True),
        ("2.3.7", "<=2.3.9", True),
        ("2.3.7", ">=2.3.5", True),
        ("2.3.7", "==2.3.7", True),
        ("2.3.7", "!=2.3.7", False),
    ],
)
def test_should_not_raise_value_error_for_expected_match_expression(
    left, right, expected
):
    assert match(left, right) is expected


@pytest.mark.parametrize(
    "left,right", [("2.3.7", "=2.3.7"), ("2.3.7", "~2.3.7"), ("2.3.7", "^2.3.7")]
)
def test_should_raise_value_error_for_unexpected_match_expression(left, right):
    with pytest.raises(ValueError):
        match(left, right)


@pytest.mark.parametrize("left,right", [("1.0.0", ""), ("1.0.0", "!")])
def test_should_raise_value_error_for_invalid_match_expression(left, right):
    with pytest.raises(ValueError):
        match(left, right)


# --- from upstream tests/test_max-min.py (semver 3.0.2, BSD-3-Clause) ---

def test_should_get_max():
    assert max_ver("3.4.5", "4.0.2") == "4.0.2"


def test_should_get_max_same():
    assert max_ver("3.4.5", "3.4.5") == "3.4.5"


def test_should_get_min():
    assert min_ver("3.4.5", "4.0.2") == "3.4.5"


def test_should_get_min_same():
    assert min_ver("3.4.5", "3.4.5") == "3.4.5"


@pytest.mark.parametrize(
    "left,right,expected",
    [
        ("1.2.3-rc.2", "1.2.3-rc.10", "1.2.3-rc.2"),
        ("1.2.3-rc2", "1.2.3-rc10", "1.2.3-rc10"),
        # identifiers with letters or hyphens are compared lexically in ASCII sort
        # order.
        ("1.2.3-Rc10", "1.2.3-rc10", "1.2.3-Rc10"),
        # Numeric identifiers always have lower precedence than non-numeric
        # identifiers.
        ("1.2.3-2", "1.2.3-rc", "1.2.3-2"),
        # A larger set of pre-release fields has a higher precedence than a
        # smaller set, if all of the preceding identifiers are equal.
        ("1.2.3-rc.2.1", "1.2.3-rc.2", "1.2.3-rc.2"),
        # When major, minor, and patch are equal, a pre-release version has lower
        # precedence than a normal version.
        ("1.2.3", "1.2.3-1", "1.2.3-1"),
        ("1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha"),
    ],
)
def test_prerelease_order(left, right, expected):
    assert min_ver(left, right) == expected


# --- from upstream tests/test_subclass.py (semver 3.0.2, BSD-3-Clause) ---

def test_subclass_from_versioninfo():
    class SemVerWithVPrefix(Version):
        @classmethod
        def parse(cls, version):
            if not version[0] in ("v", "V"):
                raise ValueError(
                    "{v!r}: version must start with 'v' or 'V'".format(v=version)
                )
            return super().parse(version[1:])

        def __str__(self):
            # Reconstruct the tag.
            return "v" + super().__str__()

    v = SemVerWithVPrefix.parse("v1.2.3")
    assert str(v) == "v1.2.3"


def test_replace_from_subclass():
    # Issue#426
    # Taken from the example "Creating Subclasses from Version"
    class SemVerWithVPrefix(Version):
        """
        A subclass of Version which allows a "v" prefix
        """

        @classmethod
        def parse(cls, version: str) -> "SemVerWithVPrefix":
            """
            Parse version string to a Version instance.

            :param version: version string with "v" or "V" prefix
            :raises ValueError: when version does not start with "v" or "V"
            :return: a new instance
            """
            if not version[0] in ("v", "V"):
                raise ValueError(
                    f"{version!r}: not a valid semantic version tag. "
                    "Must start with 'v' or 'V'"
                )
            return super().parse(version[1:], optional_minor_and_patch=True)

        def __str__(self) -> str:
            # Reconstruct the tag
            return "v" + super().__str__()

    version = SemVerWithVPrefix.parse("v1.1.0")
    dev_version = version.replace(prerelease="dev.0")

    assert str(dev_version) == "v1.1.0-dev.0"
