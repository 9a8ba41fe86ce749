"""Vocabulary of the DynamicMem generator: apps, invented places, people, brands and tastes.

Every name of a person, place, employer, shop, artist, book or app here is invented (composed for
this file), so that no language model knows any of these users; common nouns (cuisines, genres,
drinks, job titles) are ordinary English. Tuples keep draws deterministic for a seeded
``random.Random``.
"""

from __future__ import annotations

#: The apps of the stream, by role (17; a released user's stream spans about 16 apps).
APPS = {
    "calendar": "Tallycal",
    "ecommerce": "Cartwell",
    "fitness": "Stridelog",
    "food_delivery": "Forkfleet",
    "music": "Tunevale",
    "maps": "Waymark",
    "banking": "Ledgerly",
    "social": "Circlet",
    "email": "Postbox",
    "assistant": "Assistant Chat",
    "books": "Readnook",
    "video": "Streamloft",
    "rides": "Ridegrid",
    "messaging": "Chirpline",
    "pets": "Pawcare",
    "weather": "Skycast",
    "notes": "Notewell",
}

_FIRST_HEADS = ("Ar", "Bel", "Cor", "Dar", "El", "Fen", "Gal", "Hal", "Is", "Jor", "Kel", "Lor", "Mar", "Nor")
_FIRST_TAILS = ("ith", "wen", "ric", "ora", "ys", "anet", "imond", "ina", "oth", "essa")
#: Invented given names (head + tail, e.g. "Belwen", "Jorimond").
FIRST_NAMES = tuple(h + t for h in _FIRST_HEADS for t in _FIRST_TAILS)
_LAST_HEADS = (
    "Ash",
    "Brin",
    "Cald",
    "Dunn",
    "Fal",
    "Grev",
    "Hollin",
    "Kess",
    "Marr",
    "Penn",
    "Quill",
    "Thorn",
)
_LAST_TAILS = ("wick", "mere", "combe", "vane", "hart", "lowe", "stead", "brook")
#: Invented family names (e.g. "Kessvane", "Quillmere").
LAST_NAMES = tuple(h + t for h in _LAST_HEADS for t in _LAST_TAILS)

#: Invented cities with neighborhoods, streets, parks (running routes), dog parks, grocers, cafés.
CITIES = (
    {
        "city": "Varnhollow",
        "neighborhoods": ("Lantern Quay", "Mossgate", "Old Tannery"),
        "streets": ("Pellan Street", "Orrin Lane", "Candlewick Road"),
        "parks": ("Harrowmere Park loop", "Tannery canal towpath"),
        "dog_parks": ("Mossgate dog meadow", "Quayside green"),
        "grocers": ("Marrowby Market", "Larkspur Provisions"),
        "cafes": ("Brassbell Roasters", "The Quiet Kettle"),
    },
    {
        "city": "Ostrevane",
        "neighborhoods": ("Saltmarsh Row", "Kettle Hill", "Glasswork District"),
        "streets": ("Thrushwell Avenue", "Mistle Row", "Copperleaf Way"),
        "parks": ("Kettle Hill circuit", "Saltmarsh boardwalk trail"),
        "dog_parks": ("Glasswork dog yard", "Hillcrest paddock"),
        "grocers": ("Tidewell Foods", "Fennick Greengrocers"),
        "cafes": ("Lampwick Café", "Cinderbean House"),
    },
    {
        "city": "Calderwick",
        "neighborhoods": ("Ivy Terrace", "North Weir", "Foxglove Green"),
        "streets": ("Ambrel Street", "Weirside Lane", "Hollowmere Road"),
        "parks": ("Weirside riverside greenway", "Foxglove common loop"),
        "dog_parks": ("Ivy Terrace dog run", "Weir meadow"),
        "grocers": ("Pantrywell Grocers", "Greystone Fresh"),
        "cafes": ("Ostrel Coffee House", "The Copper Spoon"),
    },
    {
        "city": "Pellastone",
        "neighborhoods": ("Quarry Heights", "Bellwether Square", "Rookmoor"),
        "streets": ("Quarrymans Row", "Bellcote Street", "Rookfield Avenue"),
        "parks": ("Old Quarry trail", "Rookmoor heath path"),
        "dog_parks": ("Bellwether dog green", "Quarry meadow"),
        "grocers": ("Harvestry Market", "Coldbrook Pantry"),
        "cafes": ("Grindle & Pour", "Thimble Café"),
    },
)

#: Invented employers with a team name.
EMPLOYERS = (
    ("Quillmark Logistics", "Route Planning"),
    ("Brackenridge Analytics", "Insights"),
    ("Tallowby Health", "Patient Services"),
    ("Ostrel Robotics", "Field Systems"),
    ("Fennick & Dray Architects", "Residential Design"),
    ("Lumenvale Studios", "Content"),
    ("Corvane Insurance", "Claims Modernisation"),
    ("Sablepoint Labs", "Platform"),
)
JOB_TITLES = (
    "Data Analyst",
    "Senior Data Analyst",
    "UX Researcher",
    "Logistics Coordinator",
    "Product Manager",
    "Clinical Scheduler",
    "Mechanical Engineer",
    "Content Strategist",
    "Project Architect",
    "Claims Specialist",
)

#: Invented fitness clubs and their plans.
GYMS = ("Ironleaf Fitness", "Pulsewell Athletic Club", "Granite Loft Fitness", "Northwind Training Hall")
GYM_PLANS = ("Basic", "Premium", "Off-Peak", "All-Access")

#: Invented language schools and the languages taught.
LANGUAGE_SCHOOLS = ("Babelwick Institute", "Linguaforge Studio", "Corvane Language School")
LANGUAGES = ("Portuguese", "Japanese", "Italian", "Korean", "Dutch")

#: Reading spots at home.
READING_SPOTS = ("living-room armchair", "bedroom window seat", "balcony lounger", "study reading nook")

#: Pets: species, breeds and invented names.
PETS = (("dog", "beagle"), ("dog", "border collie"), ("dog", "corgi"), ("dog", "whippet"))
PET_NAMES = ("Pelmet", "Bramble", "Tuppence", "Quiver", "Marzipan", "Nettle")

#: Cuisines: label, invented restaurants, dishes.
CUISINES = {
    "spicy Sichuan noodle dishes": (
        ("Red Lantern Noodle Bar", "Chili Ember Kitchen"),
        ("dan dan noodles", "mapo tofu"),
    ),
    "Ethiopian stews": (("Injera House Zewdi", "Berbere Table"), ("doro wat", "misir wat")),
    "Vietnamese pho": (("Pho Lanternwick", "Saigon Corner Kitchen"), ("beef pho", "bun cha")),
    "Oaxacan tacos": (("Mole Verde Taqueria", "Tlayuda Yard"), ("tacos al pastor", "tlayuda")),
    "pizza": (("Crustworks", "Forno Bellcote"), ("margherita pizza", "pepperoni pizza")),
    "burgers": (("Stackhouse Burgers", "Griddle & Bun"), ("double cheeseburger", "bacon burger")),
    "fried chicken": (("Crackle Coop", "Golden Drumstick"), ("fried chicken bucket", "chicken tenders")),
    "sushi": (("Kaiten Mossgate", "Nori Lantern"), ("salmon nigiri", "dragon roll")),
    "plant-based grain bowls": (
        ("Sprout & Grain", "Verdant Bowl Co."),
        ("quinoa power bowl", "lentil tahini bowl"),
    ),
    "fried food": (("Fryday Kitchen", "Golden Basket"), ("fish and chips", "onion rings")),
}
#: (preferred, avoided) cuisine pairs; the diet change moves a user to the last pair.
CUISINE_PAIRS = (
    ("spicy Sichuan noodle dishes", "pizza"),
    ("Ethiopian stews", "burgers"),
    ("Vietnamese pho", "fried chicken"),
    ("Oaxacan tacos", "sushi"),
)
HEALTHY_CUISINE_PAIR = ("plant-based grain bowls", "fried food")

#: Music genres with invented artists and tracks.
GENRES = {
    "lo-fi jazz": (("The Velvet Lull", "Mossbeat Quartet"), ("Rain on Pellan Street", "Slow Kettle")),
    "heavy metal": (("Ironvein", "Gravemarch"), ("Anvil of Dusk", "Rust Crown")),
    "ambient electronica": (("Halcyon Drift", "Lumen Tide"), ("Glass Harbour", "Quiet Current")),
    "country": (("Dusty Arbor", "The Millrace Boys"), ("Gravel Road Home", "Porch Light")),
    "baroque chamber music": (
        ("Ensemble Corvane", "The Tallow Consort"),
        ("Suite in Amber", "Partita for Rooks"),
    ),
    "hip-hop": (("Brickline MC", "Verse Kettle"), ("Block Lantern", "Concrete Bloom")),
    "indie folk": (("Foxglove Choir", "Weirside Lanterns"), ("Hollow Oak", "Kindling Song")),
    "EDM": (("Voltspire", "Neon Paddock"), ("Drop Circuit", "Strobe Garden")),
}
#: (preferred, avoided) genre pairs; a user's work-music taste drifts through some of them.
GENRE_PAIRS = (
    ("lo-fi jazz", "heavy metal"),
    ("ambient electronica", "country"),
    ("baroque chamber music", "hip-hop"),
    ("indie folk", "EDM"),
)

#: (preferred, avoided) drink pairs; the summer pair replaces the base one in June-August.
COFFEE_PAIRS = (("oat-milk flat whites", "drip coffee"), ("cortados", "sweetened frappés"))
SUMMER_COFFEE_PAIRS = (("iced cold brew", "hot drinks"), ("iced matcha lattes", "hot drinks"))

#: Book genres with invented titles and authors.
BOOK_GENRES = {
    "historical mysteries": (
        ("The Tanner's Alibi", "Ashes at Candlewick Road"),
        ("Odile Marrowby", "Fenwick Ashcombe"),
    ),
    "science fiction": (("Orbit of Rooks", "The Quiet Drive"), ("Ysra Kessvane", "Tomas Quillhart")),
    "nature writing": (("A Year on the Weir", "Moss and Lichen"), ("Harriet Brinlowe", "Elric Thornmere")),
    "romance novels": (
        ("Letters to Lantern Quay", "The Baker's Summer"),
        ("Celise Dunnhart", "Marla Penncombe"),
    ),
    "space opera": (("Fleet of the Ninth Sun", "The Copper Admiral"), ("Jorin Calvane", "Dessa Greywick")),
    "true crime": (("The Saltmarsh Case", "Night at Rookmoor"), ("Ansel Hollinbrook", "Pim Falstead")),
}
READING_PAIRS = (
    ("historical mysteries", "science fiction"),
    ("nature writing", "romance novels"),
    ("space opera", "true crime"),
)

#: Filler vocabulary: shows, newsletters, household goods, small talk, places.
SHOWS = ("The Lantern Keepers", "Harbourlight", "Cold Case Corvane", "Bake-Off at Mossgate", "Orbit Nine")
NEWSLETTERS = (
    ("digest@weirdaily.example", "Your morning digest"),
    ("hello@thriftlane.example", "Weekend deals inside"),
    ("news@citycouncil.example", "Road works this month"),
    ("team@podtally.example", "New episodes from your shows"),
)
HOUSEHOLD_GOODS = (
    "dish soap",
    "AA batteries",
    "paper towels",
    "desk lamp bulb",
    "laundry pods",
    "phone charger",
)
ASSISTANT_SMALL_TALK = (
    ("How many millilitres are in three cups?", "Three US cups are about 710 ml."),
    ("Set a timer for 12 minutes.", "Timer set for 12 minutes."),
    ("What's another word for 'meticulous'?", "You could use 'painstaking' or 'thorough'."),
    ("Explain the difference between a fixed and a variable-rate loan.", "A fixed rate never changes."),
    ("How many minutes are in three and a half hours?", "210 minutes."),
    ("Give me three icebreaker questions for a team meeting.", "1. Best trip this year? 2. ..."),
)
SMALL_TALK = (
    "running ten minutes late, save me a seat",
    "did you see the match last night?",
    "happy birthday!! cake on Saturday?",
    "can you send me that recipe?",
    "thanks for yesterday, it was fun",
    "on my way",
)
ERRAND_PLACES = ("Central Library", "Post office", "Hardware depot", "City museum", "Riverside cinema")
