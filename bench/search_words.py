"""Word lists and a generator of realistic catalog entries for bench.search.

Every dataset is drawn from a topic (its nouns, measures, tags and columns), a place
(cities weighted by size, some accented), a year, and a README of ~200 words: a few
sentences built from templates, common documentation words drawn by a Zipf law (so that
a word matches from a handful to most of the catalog), and a project codename, one of
20,000 made-up words (a handful of datasets each). Deterministic for a given seed.
"""

import bisect
import itertools
import random

TOPICS = {
    "transport": {
        "nouns": ["bus", "tram", "metro", "ferry", "bicycle", "taxi", "train", "parking"],
        "measures": ["ridership", "delays", "departures", "passenger counts", "journeys"],
        "tags": ["transport", "mobility", "public-transport", "traffic"],
        "columns": [
            ("route", "string", ["12", "31", "N4", "express 7"]),
            ("stop_name", "string", ["Central Station", "Harbour", "Airport", "Old Town"]),
            ("passengers", "integer", ["1204", "877", "3310"]),
            ("delay_minutes", "double", ["2.5", "0.0", "11.2"]),
            ("operator", "string", ["CityLines", "NorthRail", "BlueBus"]),
            ("vehicle_type", "string", ["articulated bus", "tram", "ferry"]),
        ],
    },
    "health": {
        "nouns": ["hospital", "clinic", "vaccination", "influenza", "ambulance", "patient"],
        "measures": ["admissions", "waiting times", "bed occupancy", "cases", "visits"],
        "tags": ["health", "hospitals", "epidemiology", "public-health"],
        "columns": [
            ("hospital", "string", ["St Olav", "Karolinska", "Charité", "La Pitié"]),
            ("admissions", "integer", ["340", "1290", "77"]),
            ("age_group", "string", ["0-17", "18-64", "65+"]),
            ("diagnosis_code", "string", ["J10", "I21", "E11"]),
            ("waiting_days", "integer", ["14", "52", "3"]),
            ("beds", "integer", ["420", "96", "1200"]),
        ],
    },
    "energy": {
        "nouns": ["electricity", "solar", "wind", "heating", "gas", "hydropower", "grid"],
        "measures": ["consumption", "production", "prices", "capacity", "outages"],
        "tags": ["energy", "electricity", "renewables", "utilities"],
        "columns": [
            ("kwh", "double", ["1520.4", "88.0", "40211.9"]),
            ("plant", "string", ["Alta dam", "Hornsea", "Vattenfall West"]),
            ("fuel", "string", ["wind", "solar", "hydro", "natural gas"]),
            ("price_eur_mwh", "double", ["54.2", "120.9", "8.1"]),
            ("meter_id", "string", ["M-1002", "M-7781", "M-0040"]),
            ("capacity_mw", "double", ["12.5", "600", "1.2"]),
        ],
    },
    "weather": {
        "nouns": ["temperature", "rainfall", "snow", "wind speed", "air quality", "pollen"],
        "measures": ["observations", "daily readings", "forecasts", "anomalies", "records"],
        "tags": ["weather", "climate", "meteorology", "environment"],
        "columns": [
            ("station", "string", ["Blindern", "Flesland", "Kastrup", "Orly"]),
            ("temperature_c", "double", ["-4.2", "17.8", "31.0"]),
            ("precipitation_mm", "double", ["0.0", "12.4", "3.3"]),
            ("pm25", "double", ["8.1", "22.7", "41.0"]),
            ("wind_ms", "double", ["3.4", "11.9", "0.5"]),
            ("snow_depth_cm", "integer", ["0", "45", "112"]),
        ],
    },
    "finance": {
        "nouns": ["budget", "tax", "procurement", "grants", "spending", "debt", "salaries"],
        "measures": ["revenue", "expenditure", "contracts", "payments", "forecasts"],
        "tags": ["finance", "budget", "economy", "spending"],
        "columns": [
            ("amount_eur", "double", ["10400.00", "250.75", "1200000"]),
            ("supplier", "string", ["Acme Consulting", "Nordic Paper", "Bygg AS"]),
            ("department", "string", ["Parks", "Schools", "Roads", "Social Services"]),
            ("invoice_no", "string", ["INV-2231", "INV-0091", "INV-7777"]),
            ("fiscal_year", "integer", ["2019", "2021", "2023"]),
            ("cost_centre", "string", ["4410", "2020", "9001"]),
        ],
    },
    "education": {
        "nouns": ["school", "university", "kindergarten", "students", "teachers", "exams"],
        "measures": ["enrolment", "results", "graduation rates", "class sizes", "absences"],
        "tags": ["education", "schools", "students"],
        "columns": [
            ("school_name", "string", ["Riverside High", "Nordre Skole", "Lycée Victor Hugo"]),
            ("pupils", "integer", ["320", "1140", "58"]),
            ("grade", "string", ["1", "5", "10"]),
            ("exam_score", "double", ["4.1", "3.7", "5.0"]),
            ("subject", "string", ["mathematics", "reading", "science"]),
            ("teacher_count", "integer", ["22", "75", "9"]),
        ],
    },
    "housing": {
        "nouns": ["housing", "rent", "apartments", "building permits", "property", "homeless"],
        "measures": ["prices", "sales", "vacancies", "construction", "evictions"],
        "tags": ["housing", "real-estate", "planning"],
        "columns": [
            ("address", "string", ["Storgata 1", "Main Street 42", "Rue de Rivoli 7"]),
            ("price_per_m2", "double", ["5400", "12800", "3100"]),
            ("rooms", "integer", ["1", "3", "5"]),
            ("permit_type", "string", ["new build", "extension", "demolition"]),
            ("district", "string", ["Grünerløkka", "Södermalm", "Kreuzberg"]),
            ("floor_area_m2", "double", ["42.5", "88", "130.2"]),
        ],
    },
    "agriculture": {
        "nouns": ["wheat", "dairy", "fisheries", "salmon", "forestry", "livestock", "crops"],
        "measures": ["yields", "catches", "exports", "harvest", "herd sizes"],
        "tags": ["agriculture", "food", "fisheries", "farming"],
        "columns": [
            ("crop", "string", ["barley", "wheat", "potatoes", "oats"]),
            ("tonnes", "double", ["1200.5", "88", "40300"]),
            ("farm_id", "string", ["F-0012", "F-9021", "F-3333"]),
            ("species", "string", ["Atlantic salmon", "cod", "herring"]),
            ("hectares", "double", ["12.0", "450.5", "3.3"]),
            ("vessel", "string", ["Havbris", "Polarfangst", "Sjøblomst"]),
        ],
    },
    "tourism": {
        "nouns": ["hotel", "tourism", "museum", "cruise", "campsite", "festival", "visitors"],
        "measures": ["overnight stays", "arrivals", "occupancy", "ticket sales", "bookings"],
        "tags": ["tourism", "culture", "travel"],
        "columns": [
            ("hotel_name", "string", ["Grand Hotel", "Fjord Inn", "Hôtel du Lac"]),
            ("nights", "integer", ["2", "7", "14"]),
            ("guest_country", "string", ["Germany", "Japan", "United States"]),
            ("museum", "string", ["Munch", "Louvre", "Rijksmuseum"]),
            ("tickets_sold", "integer", ["320", "88000", "1500"]),
            ("rating", "double", ["4.5", "3.9", "4.9"]),
        ],
    },
    "safety": {
        "nouns": ["crime", "fire", "police", "road accidents", "emergency calls", "burglary"],
        "measures": ["incidents", "response times", "reports", "injuries", "arrests"],
        "tags": ["safety", "crime", "emergency", "police"],
        "columns": [
            ("incident_type", "string", ["burglary", "fire alarm", "collision"]),
            ("response_seconds", "integer", ["340", "612", "95"]),
            ("severity", "string", ["minor", "serious", "fatal"]),
            ("precinct", "string", ["North", "Centre", "East"]),
            ("reported_at", "timestamp", ["2023-03-01T10:22:00", "2024-11-19T23:05:00"]),
            ("units_dispatched", "integer", ["1", "3", "7"]),
        ],
    },
    "environment": {
        "nouns": ["water", "waste", "recycling", "noise", "emissions", "rivers", "forests"],
        "measures": ["levels", "quality", "volumes", "measurements", "monitoring"],
        "tags": ["environment", "water", "waste", "emissions"],
        "columns": [
            ("site", "string", ["River Glomma", "Lake Mälaren", "Thames Barrier"]),
            ("nitrate_mg_l", "double", ["1.2", "8.9", "0.4"]),
            ("co2_tonnes", "double", ["1200", "40.5", "99000"]),
            ("waste_kg", "double", ["3400", "120", "88"]),
            ("noise_db", "double", ["55", "72", "81"]),
            ("sample_id", "string", ["S-001", "S-445", "S-9120"]),
        ],
    },
    "population": {
        "nouns": ["population", "births", "deaths", "migration", "households", "census"],
        "measures": ["estimates", "projections", "statistics", "counts", "rates"],
        "tags": ["population", "demographics", "census", "statistics"],
        "columns": [
            ("age", "integer", ["0", "34", "87"]),
            ("sex", "string", ["female", "male"]),
            ("population", "integer", ["693494", "12004", "2100"]),
            ("municipality", "string", ["Bærum", "Asker", "Lørenskog"]),
            ("household_size", "double", ["2.1", "1.8", "3.4"]),
            ("nationality", "string", ["Norwegian", "Polish", "Swedish"]),
        ],
    },
    "employment": {
        "nouns": ["employment", "unemployment", "wages", "vacancies", "labour force", "jobs"],
        "measures": ["rates", "statistics", "surveys", "trends", "earnings"],
        "tags": ["labour", "employment", "economy"],
        "columns": [
            ("industry", "string", ["construction", "health care", "retail"]),
            ("employed", "integer", ["12000", "340", "88100"]),
            ("median_wage", "double", ["4200", "3100.5", "6900"]),
            ("occupation", "string", ["nurse", "electrician", "software developer"]),
            ("unemployment_rate", "double", ["3.4", "7.9", "12.0"]),
            ("quarter", "string", ["Q1", "Q2", "Q3", "Q4"]),
        ],
    },
    "retail": {
        "nouns": ["retail", "groceries", "e-commerce", "restaurants", "shops", "alcohol"],
        "measures": ["sales", "turnover", "prices", "footfall", "openings"],
        "tags": ["retail", "commerce", "consumer"],
        "columns": [
            ("store", "string", ["Rema 1000", "Carrefour", "Tesco Extra"]),
            ("product", "string", ["milk", "coffee", "bread", "bananas"]),
            ("units_sold", "integer", ["120", "4400", "9"]),
            ("price", "double", ["19.90", "4.50", "129.00"]),
            ("category", "string", ["dairy", "beverages", "bakery"]),
            ("receipt_id", "string", ["R-0001", "R-4521", "R-9090"]),
        ],
    },
}

# (city, country, weight): larger cities are in more datasets.
PLACES = [
    ("Oslo", "Norway", 30),
    ("Bergen", "Norway", 12),
    ("Trondheim", "Norway", 9),
    ("Tromsø", "Norway", 6),
    ("Stavanger", "Norway", 6),
    ("Bodø", "Norway", 3),
    ("Ålesund", "Norway", 3),
    ("Stockholm", "Sweden", 25),
    ("Göteborg", "Sweden", 10),
    ("Malmö", "Sweden", 8),
    ("Umeå", "Sweden", 3),
    ("Copenhagen", "Denmark", 20),
    ("Aarhus", "Denmark", 7),
    ("Odense", "Denmark", 4),
    ("Helsinki", "Finland", 15),
    ("Tampere", "Finland", 5),
    ("Oulu", "Finland", 3),
    ("Reykjavík", "Iceland", 4),
    ("Berlin", "Germany", 30),
    ("München", "Germany", 15),
    ("Köln", "Germany", 10),
    ("Düsseldorf", "Germany", 7),
    ("Hamburg", "Germany", 14),
    ("Leipzig", "Germany", 5),
    ("Paris", "France", 30),
    ("Lyon", "France", 10),
    ("Besançon", "France", 2),
    ("Nîmes", "France", 2),
    ("Marseille", "France", 9),
    ("Orléans", "France", 2),
    ("Zürich", "Switzerland", 10),
    ("Genève", "Switzerland", 6),
    ("Wien", "Austria", 12),
    ("Kraków", "Poland", 8),
    ("Łódź", "Poland", 5),
    ("Gdańsk", "Poland", 5),
    ("Warsaw", "Poland", 14),
    ("Praha", "Czechia", 10),
    ("Brno", "Czechia", 4),
    ("Madrid", "Spain", 20),
    ("Barcelona", "Spain", 18),
    ("Córdoba", "Spain", 4),
    ("Málaga", "Spain", 5),
    ("Lisboa", "Portugal", 10),
    ("Porto", "Portugal", 6),
    ("Roma", "Italy", 18),
    ("Milano", "Italy", 14),
    ("Torino", "Italy", 6),
    ("Amsterdam", "Netherlands", 16),
    ("Rotterdam", "Netherlands", 8),
    ("Utrecht", "Netherlands", 5),
    ("Brussels", "Belgium", 10),
    ("Liège", "Belgium", 3),
    ("Dublin", "Ireland", 10),
    ("Cork", "Ireland", 3),
    ("London", "United Kingdom", 30),
    ("Manchester", "United Kingdom", 9),
    ("Edinburgh", "United Kingdom", 7),
    ("Cardiff", "United Kingdom", 4),
    ("Tallinn", "Estonia", 4),
    ("Riga", "Latvia", 4),
    ("Vilnius", "Lithuania", 4),
    ("Budapest", "Hungary", 9),
    ("Québec", "Canada", 4),
    ("Montréal", "Canada", 10),
    ("Toronto", "Canada", 14),
    ("São Paulo", "Brazil", 12),
    ("Bogotá", "Colombia", 6),
    ("Ciudad de México", "Mexico", 10),
    ("Istanbul", "Turkey", 10),
]

ORGS = [
    "the city council",
    "the statistics office",
    "the national agency",
    "the county",
    "the transport authority",
    "the health trust",
    "the ministry",
    "the university",
    "the port authority",
    "the environment agency",
    "the tax administration",
]

# Documentation words, most common first (a Zipf law draws them).
COMMON = """
data dataset the of and in for from are is by each with this to values year records
file month updated source table rows per total number value column daily monthly
collected published official reported estimates measured annual based includes
figures counts national regional municipal public agency statistics quarterly
period series revised latest original format methodology notes missing available
region area districts sample survey definitions changes comparison coverage
provisional final weekly hourly averages median maximum minimum calculated
adjusted seasonally corrected aggregated raw cleaned validated duplicates removed
licence open attribution contact questions feedback documentation release history
version previous earlier later time zone local standard categories codes labels
identifiers unique key primary reference lookup joined linked related other
background purpose scope limitations caveats quality assurance checks errors known
issues footnotes breaks consistent comparable harmonised international classification
method modelled imputed weighting response rate respondents interviews registers
administrative sources extracted processed pipeline schedule automatically manually
entered verified approved archived historical trend growth decline increase decrease
change share percent ratio index baseline target indicator threshold limit capacity
demand supply distribution network sensors devices stations locations coordinates
latitude longitude boundaries polygons geography urban rural inner outer suburbs
centre north south east west coastal inland northern southern counties provinces
running runs ran measuring measurements planning planned forecasting modelled
cycling cyclists walking commuters commuting travelling households businesses firms
residents citizens visitors children elderly youth adults women men workers
""".split()

SYLLABLES = [
    "ka",
    "vo",
    "li",
    "dre",
    "mun",
    "sa",
    "tor",
    "el",
    "qui",
    "bra",
    "no",
    "ve",
    "ix",
    "zan",
    "or",
    "pel",
    "ru",
    "ta",
    "gon",
    "fi",
    "lem",
    "cy",
    "ast",
    "ber",
    "ox",
    "ul",
]


def codenames(count, seed=3):
    """``count`` distinct made-up words of three or four syllables."""
    rng, names = random.Random(seed), set()
    while len(names) < count:
        names.add("".join(rng.choice(SYLLABLES) for _ in range(rng.choice((3, 4)))))
    return sorted(names)


def _cumulative(weights):
    return list(itertools.accumulate(weights))


class Catalog:
    """Draws datasets: ``entry(i)`` is a dict of name, description, readme, tags,
    columns (name, type, description or None, values), format and popularity."""

    FORMATS = (("csv", 60), ("parquet", 25), ("jsonl", 10), (None, 5))

    def __init__(self, seed=11, codename_count=20_000):
        self.rng = random.Random(seed)
        self.topics = list(TOPICS)
        self.place_cw = _cumulative(w for _, _, w in PLACES)
        self.common_cw = _cumulative(1 / (rank + 8) for rank in range(len(COMMON)))
        self.format_cw = _cumulative(w for _, w in self.FORMATS)
        self.codenames = codenames(codename_count)
        self.names = set()

    def _pick(self, items, cw):
        return items[bisect.bisect(cw, self.rng.random() * cw[-1])]

    def entry(self):
        rng = self.rng
        topic_name = rng.choice(self.topics)
        topic = TOPICS[topic_name]
        city, country, _ = self._pick(PLACES, self.place_cw)
        noun, measure = rng.choice(topic["nouns"]), rng.choice(topic["measures"])
        year = rng.randint(2000, 2025)
        name = rng.choice(
            (
                f"{city} {noun} {measure} {year}",
                f"{noun.capitalize()} {measure} in {city}, {year}",
                f"{city}: {noun} {measure} ({year}-{year + rng.randint(1, 5)})",
                f"{noun.capitalize()} {measure} by district, {city} {year}",
            )
        )
        base, n = name, 2
        while name.lower() in self.names:
            name, n = f"{base} #{n}", n + 1
        self.names.add(name.lower())
        org = rng.choice(ORGS)
        codename = rng.choice(self.codenames)
        description = (
            f"{measure.capitalize()} of {noun} in {city} ({country}), {year}, published by {org}."
        )
        words = [self._pick(COMMON, self.common_cw) for _ in range(150)]
        sentences = [" ".join(words[i : i + 15]).capitalize() + "." for i in range(0, 150, 15)]
        readme = "\n".join(
            [
                f"# {name}",
                "",
                f"This dataset holds {measure} of {noun} in {city}, {country}, for {year}, "
                f"collected by {org}.",
                " ".join(sentences[:5]),
                "",
                "## Method",
                " ".join(sentences[5:]),
                f"Internal project codename: {codename}.",
            ]
        )
        extra = [
            t for tags in (TOPICS[t]["tags"] for t in rng.sample(self.topics, 2)) for t in tags
        ]
        tags = rng.sample(topic["tags"], rng.randint(1, len(topic["tags"])))
        tags += rng.sample(["open-data", "monthly", "annual", "official", "sensor"], 1)
        tags += rng.sample(extra, rng.randint(0, 1))
        columns = [
            ("id", "integer", [str(rng.randint(1, 10**6)) for _ in range(3)]),
            ("date", "date", [f"{year}-{rng.randint(1, 12):02d}-01"]),
            ("city", "string", [city]),
            ("country", "string", [country]),
        ] + rng.sample(topic["columns"], 6)
        described = set(rng.sample(range(4, 10), 3))
        return {
            "name": name,
            "description": description,
            "readme": readme,
            "tags": list(dict.fromkeys(tags)),
            "columns": [
                {
                    "name": column,
                    "type": kind,
                    "description": f"The {column.replace('_', ' ')} of each {noun} record"
                    if i in described
                    else None,
                    "values": values,
                }
                for i, (column, kind, values) in enumerate(columns)
            ],
            "format": self._pick(self.FORMATS, self.format_cw)[0],
            "popularity": int(1 / (rng.random() + 0.002)),
        }
