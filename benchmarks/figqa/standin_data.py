"""Stand-in data for real plotting scripts whose repository lacks a data file.

Only where the file is truly absent (the MCM 2025 C athletes table is ~20 MB and was
not kept by the repositories that used it) is a stand-in generated, with the
columns, value kinds and shape the scripts read: same header, the years of the
repository's own summerOly_hosts.csv, the sports of its summerOly_programs.csv,
three-letter NOC codes including every code the scripts name. The figures drawn from
it show the scripts' own layout (titles, labels, legends, ticks) on other numbers;
`real_sources.csv` names every script that uses it (column `data`).
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

_NOCS = {
    "USA": "United States", "CHN": "China", "GBR": "Great Britain", "FRA": "France",
    "GER": "Germany", "ITA": "Italy", "JPN": "Japan", "ROU": "Romania", "RUS": "Russia",
    "AUS": "Australia", "CAN": "Canada", "HUN": "Hungary", "SWE": "Sweden", "NED": "Netherlands",
    "KOR": "South Korea", "BRA": "Brazil", "ESP": "Spain", "POL": "Poland", "CUB": "Cuba",
    "FIN": "Finland", "NOR": "Norway", "DEN": "Denmark", "SUI": "Switzerland",
    "BEL": "Belgium", "KEN": "Kenya", "JAM": "Jamaica", "NZL": "New Zealand", "ARG": "Argentina",
    "MEX": "Mexico", "IND": "India", "TUR": "Turkey", "GRE": "Greece", "UKR": "Ukraine",
    "BUL": "Bulgaria", "CZE": "Czechia", "AUT": "Austria", "ETH": "Ethiopia", "IRI": "Iran",
    "RSA": "South Africa", "EGY": "Egypt", "COL": "Colombia", "NGR": "Nigeria",
}


def summerOly_athletes(root: Path, dest: Path, rows: int = 40_000, seed: int = 27) -> None:
    """Name,Sex,Team,NOC,Year,City,Sport,Event,Medal like the contest's athletes table."""
    rnd = random.Random(seed)
    with open(root / "summerOly_hosts.csv", encoding="utf-8-sig") as fh:
        hosts = [(int(r["Year"]), r["Host"].split(",")[0].strip()) for r in csv.DictReader(fh)
                 if "Cancelled" not in r["Host"]]
    with open(root / "summerOly_programs.csv", encoding="cp1252") as fh:
        sports = sorted({r["Sport"].strip() for r in csv.DictReader(fh)
                         if r["Sport"].strip() not in ("", "Sport")
                         and not r["Sport"].startswith("Total")})
    nocs = list(_NOCS)
    weights = [1.0 / (1 + k * 0.15) for k in range(len(nocs))]  # a few big teams
    athletes: list[tuple[str, str, str, int]] = []  # name, sex, noc, first year index
    out = []
    for _ in range(rows):
        if athletes and rnd.random() < 0.35:  # a returning athlete: careers span Games
            name, sex, noc, first = rnd.choice(athletes)
            k = min(len(hosts) - 1, first + rnd.randint(1, 3))
        else:
            k = rnd.randrange(len(hosts))
            share_f = 0.02 + 0.46 * k / len(hosts)
            sex = "F" if rnd.random() < share_f else "M"
            noc = rnd.choices(nocs, weights)[0]
            name = f"Athlete {len(athletes) + 1}"
            athletes.append((name, sex, noc, k))
        year, city = hosts[k]
        sport = rnd.choice(sports)
        kind = rnd.choice(["Singles", "Team", "Open", "100m", "Final"])
        event = f"{sport} {'Women' if sex == 'F' else 'Men'}'s {kind}"
        medal = rnd.choices(["Gold", "Silver", "Bronze", "No medal"], [4, 4, 4, 88])[0]
        out.append([name, sex, _NOCS[noc], noc, year, city, sport, event, medal])
    out.sort(key=lambda r: (r[4], r[3], r[0]))
    with open(dest, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Name", "Sex", "Team", "NOC", "Year", "City", "Sport", "Event", "Medal"])
        w.writerows(out)


GENERATORS = {"summerOly_athletes": summerOly_athletes}
