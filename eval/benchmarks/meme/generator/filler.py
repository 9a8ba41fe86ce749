"""Filler chat: varied everyday and technical conversations that carry no episode facts.

A filler session is composed from topic templates (openers, answer sentences, follow-ups) whose slots
are filled from shared pools, so sessions vary in topic, wording, length and order; a session
sometimes drifts into a second topic. :func:`filler_sessions` assembles sessions up to a cl100k token
budget, counting each turn once as it is made (never re-tokenising the episode).

Filler never names an entity of the MEME domains nor uses their invented values: it is noise a
memory system has to ignore, not a source of conflicting facts.
"""

# ruff: noqa: E501 -- one template per line reads better than wrapped strings.
from __future__ import annotations

import random
from dataclasses import dataclass

from memory_systems.tokens import count_tokens

_POOLS: dict[str, tuple[str, ...]] = {
    "friend": (
        "Mara",
        "Jonas",
        "Priya",
        "Tomas",
        "Lena",
        "Ade",
        "Kofi",
        "Sofia",
        "Ravi",
        "Hannah",
        "Mateo",
        "Yuki",
        "Ines",
        "Oskar",
        "Leila",
        "Dmitri",
        "Amara",
        "Felix",
    ),
    "dish": (
        "lentil soup",
        "mushroom risotto",
        "chickpea curry",
        "banana bread",
        "roast vegetables",
        "shakshuka",
        "lemon tart",
        "fish tacos",
        "miso ramen",
        "spinach lasagne",
        "black bean chili",
        "potato gratin",
        "vegetable stir-fry",
        "tomato pasta",
    ),
    "ingredient": (
        "garlic",
        "smoked paprika",
        "fresh ginger",
        "lime zest",
        "cumin seeds",
        "brown butter",
        "tahini",
        "sherry vinegar",
        "capers",
        "fennel",
        "coriander",
        "anchovies",
        "miso paste",
        "chili flakes",
    ),
    "veg": (
        "carrots",
        "broccoli",
        "sweet potatoes",
        "green beans",
        "cauliflower",
        "courgettes",
        "beetroot",
        "kale",
    ),
    "minutes": ("10", "15", "20", "25", "30", "40", "45", "60"),
    "weekday": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "month": ("January", "February", "April", "May", "June", "July", "September", "October", "November"),
    "plant": (
        "basil",
        "tomatoes",
        "fiddle-leaf fig",
        "lavender",
        "mint",
        "peppers",
        "snake plant",
        "strawberries",
        "rosemary",
        "monstera",
    ),
    "genre": (
        "mystery",
        "science fiction",
        "historical fiction",
        "poetry",
        "travel writing",
        "biography",
        "fantasy",
        "essays",
    ),
    "place": (
        "the coast",
        "the mountains",
        "a lakeside cabin",
        "the old town",
        "a small fishing village",
        "the countryside",
        "a national park",
        "a big city",
    ),
    "exercise": (
        "squats",
        "push-ups",
        "lunges",
        "planks",
        "rowing intervals",
        "hill sprints",
        "kettlebell swings",
        "pull-ups",
    ),
    "bug": (
        "an off-by-one error",
        "a race condition",
        "a null reference",
        "a timezone bug",
        "an encoding issue",
        "a memory leak",
        "a flaky test",
        "an infinite loop",
    ),
    "concept": (
        "recursion",
        "dependency injection",
        "database indexes",
        "caching",
        "unit testing",
        "pagination",
        "rate limiting",
        "immutability",
        "type hints",
        "async code",
    ),
    "prog": ("Python", "JavaScript", "SQL", "Bash", "Go", "TypeScript"),
    "instrument": ("guitar", "piano", "violin", "ukulele", "drums", "cello"),
    "pet": ("cat", "puppy", "rabbit", "parrot", "hamster", "senior dog"),
    "hobby": (
        "pottery",
        "birdwatching",
        "chess",
        "knitting",
        "bouldering",
        "sketching",
        "baking bread",
        "photography",
    ),
    "room": ("kitchen", "hallway", "bathroom", "spare room", "balcony", "bedroom"),
    "chore": (
        "descaling the kettle",
        "cleaning the oven",
        "defrosting the freezer",
        "washing the windows",
        "sorting the wardrobe",
        "clearing the gutters",
    ),
    "lang": ("Spanish", "Italian", "Japanese", "German", "Portuguese", "Korean", "French", "Dutch"),
    "doc": (
        "the quarterly report",
        "a client proposal",
        "the onboarding guide",
        "a project update",
        "meeting notes",
        "a cover letter",
    ),
    "game": (
        "chess",
        "trivia",
        "card game",
        "board game",
        "word game",
        "quiz",
    ),
    "weather": ("rainy", "windy", "unusually warm", "grey and cold", "sunny", "foggy"),
    "feeling": ("tired", "a bit overwhelmed", "restless", "pretty good", "distracted", "motivated"),
    "snack": (
        "an apple with peanut butter",
        "a handful of nuts",
        "yogurt",
        "a boiled egg",
        "hummus and carrots",
        "oat biscuits",
    ),
}
# Leads before an assistant's first answer, and a closing exchange some sessions end with.
_LEADS = (
    "Sure! ",
    "Good question. ",
    "Happy to help. ",
    "Here's how I'd approach it. ",
    "Great idea. ",
    "",
    "",
    "Of course. ",
)
_CLOSERS = (
    ("Thanks, that's really helpful.", "You're welcome -- good luck with it!"),
    ("Perfect, I'll try that.", "Let me know how it goes."),
    ("Okay, that makes sense now.", "Glad it helped."),
    ("Great, thank you!", "Anytime."),
    ("I'll think about it over the weekend.", "Sounds like a plan. Enjoy the weekend!"),
)
# Short reactions before a follow-up, leads before its answer, and generic codas: composed with the
# topic sentences they make exact repeats of whole turns rare.
_REACTIONS = (
    "",
    "",
    "",
    "Makes sense. ",
    "Thanks. ",
    "Got it. ",
    "Okay. ",
    "Interesting. ",
    "Hmm. ",
    "Good to know. ",
    "Right. ",
    "I see. ",
)
_ANSWER_LEADS = (
    "",
    "",
    "",
    "Good question. ",
    "Fair question. ",
    "It depends a little. ",
    "Short answer first. ",
    "Yes, that comes up a lot. ",
)
_CODAS = (
    "If it helps, try it first on a {weekday} when you have more time.",
    "Give it {num_2_4} weeks before deciding whether it works for you.",
    "{friend} might have tried something similar, so it could be worth asking.",
    "Keep notes as you go; it's easier to adjust later.",
    "Don't aim for perfect on the first attempt.",
    "A small first step today is better than a big plan for {month}.",
    "You can always adjust once you see how it goes.",
    "Most people find the second attempt much easier than the first.",
    "If you get stuck, break it into even smaller pieces.",
    "Set a reminder for {weekday} so it doesn't slip.",
    "It's worth spending {minutes} minutes on this rather than rushing it.",
    "Whatever you choose, consistency matters more than the details.",
    "Feel free to come back and tell me how it went.",
    "There's no single right answer here, so trust your own sense of what fits.",
)
_DRIFT = (
    "Unrelated, but can I ask you something else?",
    "Changing the subject a bit --",
    "Different topic:",
    "While I have you,",
    "Also, totally unrelated:",
)


@dataclass(frozen=True)
class _Topic:
    name: str
    openers: tuple[str, ...]
    replies: tuple[str, ...]
    followups: tuple[str, ...]
    details: tuple[str, ...]
    """``details[i]`` answers ``followups[i]``; the sentences after those are extra remarks."""


_TOPICS: tuple[_Topic, ...] = (
    _Topic(
        "cooking",
        (
            "I want to make {dish} tonight but I'm out of {ingredient}. Any substitutes?",
            "What's a good weeknight dinner that takes under {minutes} minutes?",
            "My {dish} always turns out bland. What am I doing wrong?",
            "{friend} is coming over on {weekday} and I'd like to cook {dish}. Tips?",
            "How do I keep {dish} from going soggy when I reheat it?",
        ),
        (
            "A lot of it comes down to seasoning in layers rather than all at the end.",
            "If you don't have {ingredient}, {ingredient2} can stand in, though the flavour will shift a little.",
            "For {dish}, toast the spices briefly in oil before adding the rest; it wakes them up.",
            "Salt early and taste often -- most blandness is under-salting, not a missing ingredient.",
            "A squeeze of acid at the end, like lemon or a splash of vinegar, brightens almost anything.",
            "Prep everything before you turn on the heat so nothing burns while you chop.",
            "Budget about {minutes} minutes, plus a little slack for cleaning up.",
            "Cooking a double batch on {weekday} can save you a few evenings later in the week.",
            "Don't overcrowd the pan; food steams instead of browning when it's too full.",
            "Let it rest a few minutes before serving so the flavours settle.",
        ),
        (
            "Can I make it ahead and freeze it?",
            "What would you serve on the side?",
            "How do I scale it up for {num_4_10} people?",
            "Is there a vegetarian version?",
            "What's the one mistake beginners make with it?",
        ),
        (
            "Most stews and sauces freeze well for {num_2_4} months; cool them quickly and label the container.",
            "A simple green salad or some crusty bread balances a rich main nicely.",
            "Scaling is mostly linear, but go easy on salt and spices and adjust at the end.",
            "Swap the meat for mushrooms or chickpeas and add a spoon of miso for depth.",
            "The classic mistake is impatience -- turning the heat up to rush things.",
            "Roasted {veg} with a little {ingredient} make an easy side.",
            "If {friend} has any allergies, it's worth asking before you shop.",
            "Reheat gently with a splash of water so it doesn't dry out.",
        ),
    ),
    _Topic(
        "gardening",
        (
            "My {plant} looks droopy even though I water it. Why?",
            "When should I start planting {plant} on the {room} windowsill?",
            "I'm thinking of growing {plant} this year. Is it hard?",
            "The leaves on my {plant} are turning yellow. Should I worry?",
        ),
        (
            "Droopiness is more often overwatering than underwatering; check whether the soil stays wet.",
            "Most herbs want at least six hours of light, so a bright window helps a lot.",
            "Yellow leaves usually point to water or nutrient trouble rather than disease.",
            "A pot with drainage holes makes a bigger difference than people expect.",
            "Start small -- two or three plants are easier to keep happy than a whole shelf.",
            "Feeding once every {num_2_4} weeks in the growing season is plenty for most plants.",
            "Rotate the pot a quarter turn each week so it grows evenly toward the light.",
            "In {month} the light is weaker, so growth will naturally slow down.",
        ),
        (
            "How often should I water it?",
            "Do I need special soil?",
            "Can it live outside in summer?",
            "What about pests?",
        ),
        (
            "Water when the top two centimetres of soil feel dry, rather than on a fixed schedule.",
            "A general potting mix with some perlite works for most container plants.",
            "Yes, but harden it off gradually over a week so the sun doesn't scorch it.",
            "A gentle spray of soapy water handles most aphids.",
            "Check the undersides of leaves now and then; that's where trouble starts.",
            "Mulching the top of the pot keeps moisture more even.",
        ),
    ),
    _Topic(
        "fitness",
        (
            "I want to get stronger but only have {minutes} minutes a day. Where do I start?",
            "My knees ache after {exercise}. Should I stop?",
            "Can you suggest a simple home workout without equipment?",
            "I've been feeling {feeling} and skipping workouts. How do I get back on track?",
        ),
        (
            "Consistency beats intensity: short sessions you actually do are worth more than long ones you skip.",
            "A basic circuit of {exercise}, {exercise2} and a plank covers most of the body.",
            "Warm up for five minutes first; cold joints complain the most.",
            "If something hurts sharply, stop and swap the movement for a gentler one.",
            "Aim for {num_2_4} sessions a week and add a little each week.",
            "Sleep and food matter as much as the workout itself for getting stronger.",
            "Write down what you did each time so you can see the progress.",
            "Pairing a workout with something you already do every day makes the habit stick.",
        ),
        (
            "How many sets and reps?",
            "Should I stretch before or after?",
            "What should I eat afterwards?",
            "How long until I notice a difference?",
        ),
        (
            "Three sets of eight to twelve reps is a solid starting range.",
            "Dynamic movement before, slower stretching after tends to feel best.",
            "Something with protein and a bit of carbohydrate, like {snack}, is fine.",
            "Most people feel a difference in three to four weeks and see one in eight to twelve.",
            "Rest days are when the body actually adapts, so don't skip them.",
            "If {exercise} feels too hard, an easier variation still counts.",
        ),
    ),
    _Topic(
        "travel",
        (
            "I'm planning a long-weekend trip to {place} in {month}. What should I pack?",
            "Any tips for not overspending on a trip to {place}?",
            "{friend} and I can't agree between {place} and {place2}. How do we decide?",
            "How do I deal with jet lag on a short trip?",
        ),
        (
            "Pack layers; weather in {month} can swing a lot within a single day.",
            "Set a daily budget and keep a little buffer for surprises.",
            "Write down what each of you wants most from the trip -- rest, food, walking -- and compare.",
            "Booking the first night's accommodation in advance takes a lot of stress out of arriving.",
            "Local markets are often the best and cheapest way to eat well.",
            "A light rain jacket and comfortable shoes are rarely a mistake.",
            "Check opening days for museums; many close on {weekday}.",
            "Keep digital and paper copies of important documents.",
        ),
        (
            "What about getting around once I'm there?",
            "Is it worth buying travel insurance for a short trip?",
            "How far ahead should I book?",
            "Any ideas for a rainy day?",
        ),
        (
            "Day passes for public transport usually pay off if you take more than three rides.",
            "For short trips it depends on how much you'd lose if plans changed.",
            "Six to eight weeks ahead is often the sweet spot for prices.",
            "A long lunch, a museum, and a walk if it clears up is a fine rainy-day plan.",
            "Walking tours are a great way to get your bearings on the first day.",
            "Leave one afternoon unplanned; it's often the best part.",
        ),
    ),
    _Topic(
        "books",
        (
            "Can you recommend something to read if I liked a slow, thoughtful {genre} book?",
            "I keep starting books and not finishing them. Any advice?",
            "{friend} wants to start a reading group. How do we pick books?",
            "I want to read more {genre} this year. Where do I begin?",
        ),
        (
            "It's fine to abandon a book; life is short and there are many more.",
            "Reading {num_10_20} pages before bed adds up to a surprising number of books a year.",
            "Anthologies are a low-commitment way to sample a genre.",
            "Rotate between something light and something demanding.",
            "A library card makes experimenting free.",
            "Let each member suggest one title and vote, so everyone feels heard.",
            "Audiobooks count -- they're perfect for commutes and chores.",
            "Keeping a short list of what you read helps you notice what you enjoy.",
        ),
        (
            "How long should each book be for a group?",
            "Should we meet every month?",
            "What if people don't finish?",
            "Do you think e-readers are worth it?",
        ),
        (
            "Under three hundred pages keeps things manageable for busy people.",
            "Every four to six weeks gives people time without losing momentum.",
            "Make it welcome to come anyway; the conversation still helps.",
            "E-readers are great for travel and adjustable text size.",
            "Short stories or novellas work well in busy months like {month}.",
            "Rotating the host keeps the group feeling shared.",
        ),
    ),
    _Topic(
        "home",
        (
            "The {room} door keeps sticking. Can I fix it myself?",
            "What's the easiest way to get started on {chore}?",
            "My {room} feels cluttered. How do I tackle it?",
            "Is it worth repainting the {room} myself?",
        ),
        (
            "Sticking doors usually mean swollen wood or loose hinges; tightening the screws is step one.",
            "Set a timer for {minutes} minutes and stop when it rings -- starting is the hard part.",
            "Work in one corner at a time instead of the whole room at once.",
            "Three boxes -- keep, donate, recycle -- make decisions quicker.",
            "Good prep is most of a clean paint job: fill holes, sand lightly, tape edges.",
            "Open windows and take breaks; fumes and fatigue make for sloppy work.",
            "A small toolkit with a screwdriver set, a level and a tape measure handles most jobs.",
            "For {chore}, a weekend morning when you have energy works better than a tired evening.",
        ),
        (
            "What tools will I need?",
            "How long will it take?",
            "When should I call a professional?",
            "How do I keep it tidy afterwards?",
        ),
        (
            "A screwdriver, some sandpaper and a bit of patience cover most small fixes.",
            "Plan on a few hours, and double it if it's your first time.",
            "Anything involving gas, mains electricity or structural work needs a professional.",
            "A five-minute reset each evening stops clutter from coming back.",
            "Give everything a home; clutter is usually stuff without a place.",
            "Photos before and after are surprisingly motivating.",
        ),
    ),
    _Topic(
        "language",
        (
            "I'm learning {lang} and I keep forgetting vocabulary. Any tricks?",
            "How many minutes a day should I practise {lang}?",
            "Is it better to learn {lang} grammar first or just start speaking?",
            "{friend} speaks {lang}. How can I practise with them without it being awkward?",
        ),
        (
            "Spaced repetition is the most reliable way to make words stick.",
            "Even {minutes} minutes a day beats a long session once a week.",
            "Learn words in phrases rather than alone; context helps memory.",
            "Speaking early, even badly, builds confidence faster than waiting until you're ready.",
            "Label things around the {room} with sticky notes in {lang}.",
            "Listening to podcasts at slower speed is a gentle start.",
            "Agree on a short time, say twenty minutes, where you only use {lang}.",
            "Mistakes are part of it; native speakers mostly appreciate the effort.",
        ),
        (
            "What about pronunciation?",
            "Should I watch films with subtitles?",
            "How do I know I'm making progress?",
            "Are apps enough on their own?",
        ),
        (
            "Shadowing -- repeating right after a recording -- works wonders for pronunciation.",
            "Subtitles in the target language are better than in your own once you're past the basics.",
            "Record yourself every month and compare; progress is easier to hear than to feel.",
            "Apps are a great supplement but real conversation is what builds fluency.",
            "A short diary in {lang}, three sentences a day, is a nice habit.",
            "Reading children's books is underrated for building vocabulary.",
        ),
    ),
    _Topic(
        "music",
        (
            "I've picked up the {instrument} again after years. How should I practise?",
            "My fingers hurt when I play the {instrument}. Is that normal?",
            "How do I stay motivated practising the {instrument}?",
            "Can you suggest a practice routine for {minutes} minutes a day?",
        ),
        (
            "Short daily practice is better than one long weekend session.",
            "Start each session with five minutes of slow scales or warm-ups.",
            "Some soreness at first is normal; sharp pain is not.",
            "Pick one piece you love and one exercise that is slightly too hard.",
            "Recording yourself is humbling but incredibly useful.",
            "Playing along with recordings makes practice feel like music instead of drills.",
            "Set a tiny goal for each session so you finish with a win.",
            "Playing with {friend} once a week would keep you accountable.",
        ),
        (
            "Should I learn to read music?",
            "How do I get faster?",
            "Is it worth taking lessons?",
            "What should I do when I get stuck on a passage?",
        ),
        (
            "Reading music opens up a lot of material, but playing by ear matters just as much.",
            "Speed comes from practising slowly and accurately, then nudging the metronome up.",
            "Even a few lessons can fix habits that would take months to undo later.",
            "Loop the hardest two bars slowly, then add one bar on either side.",
            "Take breaks every twenty minutes to avoid strain.",
            "Keep the {instrument} out of its case so it's easy to pick up.",
        ),
    ),
    _Topic(
        "pets",
        (
            "We just adopted a {pet}. What should we get first?",
            "My {pet} keeps waking me up at night. Any ideas?",
            "How do I keep my {pet} entertained while I'm at work?",
            "{friend} is looking after my {pet} next week. What should I write down for them?",
        ),
        (
            "A quiet corner with bedding and water is the first thing any new pet needs.",
            "Routines help a lot: feeding and play at the same times every day.",
            "Puzzle feeders and a few rotating toys keep boredom away.",
            "Tire them out with play in the evening so they sleep through.",
            "Write down feeding amounts, the vet's number and any quirks.",
            "Give a new pet a few days to settle before introducing lots of people.",
            "Check which houseplants are safe; some common ones are toxic to animals.",
            "A short training session each day builds trust quickly.",
        ),
        (
            "How often should they see a vet?",
            "What about travelling with them?",
            "Is it okay to change their food?",
            "How do I stop them scratching the furniture?",
        ),
        (
            "A yearly check-up is typical for healthy adults, more often when they're young or old.",
            "Get them used to the carrier at home before any trip.",
            "Change food gradually over about a week to avoid upset stomachs.",
            "Offer an acceptable alternative nearby and reward them for using it.",
            "Patience is everything; most habits change within a few weeks.",
            "Leaving a worn T-shirt in their bed can be comforting while you're away.",
        ),
    ),
    _Topic(
        "productivity",
        (
            "I feel {feeling} and can't focus on {doc}. Any tips?",
            "How do I stop checking my phone every five minutes?",
            "I have too many small tasks. How should I organise them?",
            "What's a good way to plan my week on {weekday} evenings?",
        ),
        (
            "Break the work into a first step so small it feels silly not to do it.",
            "Try working in blocks of {minutes} minutes with a short break after each.",
            "Put the phone in another room; distance beats willpower.",
            "Write every task down once, then pick only three for today.",
            "Batch similar small tasks together, like all your emails at once.",
            "A short weekly review keeps things from slipping through the cracks.",
            "Protect your best hours for the hardest work.",
            "It's normal to feel {feeling} sometimes; be kind to yourself and start small.",
        ),
        (
            "What if something urgent comes up?",
            "Should I use an app or paper?",
            "How do I say no to extra work?",
            "What about long-term goals?",
        ),
        (
            "Urgent things will always appear; leave some slack in the plan for them.",
            "Use whatever you'll actually open every day -- the tool matters less than the habit.",
            "A polite 'not this week, but maybe next' keeps relationships intact.",
            "Break long-term goals into monthly milestones and one weekly action.",
            "Ending each day by choosing tomorrow's first task makes mornings easier.",
            "Celebrate finishing things, not just starting them.",
        ),
    ),
    _Topic(
        "writing",
        (
            "Can you help me make {doc} sound more professional?",
            "I need to email my team about a delay. How do I phrase it?",
            "How long should {doc} be?",
            "I always struggle to start writing {doc}. Any method?",
        ),
        (
            "Lead with the point, then the reasons, then what you need from the reader.",
            "Short sentences and plain words read as confident, not simple.",
            "For a delay, state the new date, the reason in one line, and what you're doing about it.",
            "Cut anything the reader wouldn't miss.",
            "Write a rough version fast, then edit; editing a draft is easier than facing a blank page.",
            "Headings and bullet points help busy readers find what they need.",
            "Read it aloud once; awkward sentences are easier to hear than to see.",
            "Aim for one page unless there's a good reason for more.",
        ),
        (
            "Should I apologise for the delay?",
            "How formal should the tone be?",
            "Can I use bullet points in an email?",
            "How do I end it?",
        ),
        (
            "A brief apology is fine; long apologies make things sound worse than they are.",
            "Match the tone your team normally uses, slightly more careful than chat.",
            "Bullet points are great for action items and dates.",
            "End with a clear next step and who owns it.",
            "If {friend} reviews it first, ask them what they think the main point is.",
            "Put the key date in the subject line so nobody misses it.",
        ),
    ),
    _Topic(
        "debugging",
        (
            "My {prog} script works locally but fails on the server. Where do I start?",
            "I think I have {bug} somewhere. How do I track it down?",
            "What's a good way to debug code I didn't write?",
            "Tests pass on my machine but fail in CI about one time in {num_3_9}. Ideas?",
        ),
        (
            "First make the failure reproducible; a bug you can trigger on demand is half solved.",
            "Compare environments: versions, environment variables, file paths and time zones.",
            "Add logging around the failing part rather than guessing.",
            "Intermittent failures often mean shared state between tests or timing assumptions.",
            "Binary search the problem: comment out half, see which half still fails.",
            "Read the full error message and stack trace slowly; the answer is often in the last line.",
            "Write a tiny test that captures the bug before fixing it.",
            "Explaining the code out loud, even to a rubber duck, surfaces wrong assumptions.",
        ),
        (
            "How do I make flaky tests deterministic?",
            "Is it okay to add print statements?",
            "Should I use a debugger instead?",
            "How do I avoid this next time?",
        ),
        (
            "Fix random seeds, freeze the clock, and isolate anything that touches the network.",
            "Print statements are fine for a quick look; just remove them before committing.",
            "A debugger shines when you need to inspect state step by step.",
            "A regression test and a short note in the pull request help the next person.",
            "{bug} is a classic; it's worth a quick search in your own codebase for similar patterns.",
            "Running the test many times in a loop is a cheap way to confirm a flaky fix.",
        ),
    ),
    _Topic(
        "sql",
        (
            "My SQL query got really slow once the table grew. What should I check?",
            "How do I find duplicate rows in a table?",
            "What's the difference between an inner join and a left join?",
            "Can you explain when to use a subquery versus a join?",
        ),
        (
            "Look at the query plan first; it tells you whether an index is being used.",
            "An index on the columns in your WHERE clause often fixes slow lookups.",
            "GROUP BY the columns that define a duplicate and keep groups with COUNT greater than one.",
            "An inner join keeps only matching rows; a left join keeps every row from the left table.",
            "Joins are usually clearer when you need columns from both tables.",
            "Subqueries read nicely for existence checks, like WHERE EXISTS.",
            "Avoid SELECT star in production queries; fetch only what you need.",
            "Test changes on a copy of the data before running them for real.",
        ),
        (
            "Do indexes have a downside?",
            "How do I delete the duplicates safely?",
            "What about NULL values in joins?",
            "Should I normalise everything?",
        ),
        (
            "Indexes slow down writes a little and take space, so add them where reads need them.",
            "Wrap the delete in a transaction and check the row count before committing.",
            "NULL never equals NULL in a join condition, which surprises a lot of people.",
            "Normalise by default and denormalise deliberately where reads demand it.",
            "Back up the table first; it takes a minute and saves a bad day.",
            "Window functions like ROW_NUMBER make picking one row per group easy.",
        ),
    ),
    _Topic(
        "git",
        (
            "I committed to the wrong branch. How do I fix it?",
            "What's a good commit message style?",
            "How do I undo my last commit without losing the changes?",
            "Our team keeps getting merge conflicts. Any advice?",
        ),
        (
            "Create a branch at your current commit, then reset the old branch back.",
            "A short imperative summary line followed by a blank line and the why works well.",
            "A soft reset moves the branch back but keeps your changes staged.",
            "Smaller, more frequent merges mean smaller conflicts.",
            "Pull the latest changes before you start work each day.",
            "Agree on a formatter so whitespace changes don't cause conflicts.",
            "Never rewrite history on a branch others are using without telling them.",
            "Use git status often; it tells you exactly where you are.",
        ),
        (
            "What's the difference between merge and rebase?",
            "How do I see what changed in a file?",
            "Should I squash my commits?",
            "How do I recover something I deleted?",
        ),
        (
            "Merge keeps history as it happened; rebase rewrites it to look linear.",
            "git log with the file path, or git diff between two commits, shows the changes.",
            "Squashing is nice for small fixes; keep separate commits when they tell a story.",
            "The reflog remembers where your branches have been, so most things are recoverable.",
            "Write the commit message for someone reading it a year from now.",
            "A short pull request description saves reviewers a lot of time.",
        ),
    ),
    _Topic(
        "concepts",
        (
            "Can you explain {concept} in simple terms?",
            "When should I actually use {concept}?",
            "I'm preparing for an interview. How would you explain {concept}?",
            "Is {concept} overkill for a small project?",
        ),
        (
            "The simplest way to think about {concept} is as a trade-off between convenience and control.",
            "A small concrete example usually explains it better than a definition.",
            "Use it when it removes repetition or makes a bug impossible; skip it otherwise.",
            "For an interview, give a one-line definition, an example, and one pitfall.",
            "Small projects benefit from the idea even if they skip the heavy tooling.",
            "Most concepts are easier once you've felt the pain they solve.",
            "Reading a short, well-written open-source example helps a lot.",
            "Don't worry about jargon; explaining it in your own words shows real understanding.",
        ),
        (
            "Can you give me a quick example?",
            "What are common mistakes?",
            "How does it relate to {concept2}?",
            "Any good way to practise it?",
        ),
        (
            "Take something you built recently and ask where it would have helped.",
            "The common mistake is applying it everywhere instead of where it fits.",
            "{concept} and {concept2} often show up together, but they solve different problems.",
            "Build a tiny toy project that uses it in {prog}; an afternoon is enough.",
            "Explaining it to a colleague is the best test of whether you understand it.",
            "Keep the example small enough to fit on one screen.",
        ),
    ),
    _Topic(
        "smalltalk",
        (
            "It's so {weather} today. I can't decide what to do this afternoon.",
            "I'm feeling {feeling} this {weekday}. Any ideas to lift my mood?",
            "{friend} invited me to a {game} night. I've never been to one. Should I go?",
            "What's a nice way to spend a free {weekday}?",
        ),
        (
            "A short walk, even in {weather} weather, often resets the whole day.",
            "Calling {friend} might be nicer than scrolling.",
            "Trying something new is usually more fun than you expect.",
            "A warm drink and a chapter of a book is a perfectly good afternoon.",
            "Sometimes a small errand you've been putting off gives a surprising sense of relief.",
            "Cooking something simple, like {dish}, can be relaxing.",
            "If you go, tell them it's your first time; people love teaching a game.",
            "Getting some daylight early in the day tends to help mood and sleep.",
        ),
        (
            "What if I don't enjoy it?",
            "Should I bring anything?",
            "Any ideas if the weather gets worse?",
            "What about something creative?",
        ),
        (
            "Then you've learned something and can leave early -- no harm done.",
            "A snack to share, like {snack}, is always welcome.",
            "A museum, a cinema, or reorganising a shelf all work on a bad-weather day.",
            "Sketching, writing a page, or {hobby} can be very absorbing.",
            "Plan something small for the evening so the day has a shape.",
            "Even twenty minutes outside counts.",
        ),
    ),
    _Topic(
        "hobbies",
        (
            "I want to try {hobby}. How do I start without spending much?",
            "I've been doing {hobby} for a month and I'm not improving. Normal?",
            "Is {hobby} a good hobby for someone who's {feeling} after work?",
            "{friend} wants to join me for {hobby}. How do I make it fun for a beginner?",
        ),
        (
            "Borrow or rent gear at first, and buy only once you know you'll stick with it.",
            "Progress in a new hobby comes in steps, with flat stretches in between.",
            "Look for a local club or class; beginners are usually welcome.",
            "A short session after work can be calming if you don't pressure yourself.",
            "Keep a simple log of what you tried, so you can see how far you've come.",
            "Watch one short tutorial, then go and do it instead of watching ten.",
            "Pick a small project you can finish in an afternoon.",
            "Doing it with {friend} will make the slow bits more fun.",
        ),
        (
            "How much time should I spend on it?",
            "Where can I meet other people who do it?",
            "What if I lose interest?",
            "Any beginner mistakes to avoid?",
        ),
        (
            "An hour or two a week is enough to enjoy it and improve slowly.",
            "Community centres, libraries and online groups often list meet-ups.",
            "Losing interest is fine; hobbies are allowed to change.",
            "Buying expensive gear too early is the most common beginner mistake.",
            "Short, regular sessions beat rare marathon ones.",
            "Share what you make; it's motivating to show someone.",
        ),
    ),
    _Topic(
        "budget",
        (
            "I want to save a bit more each month. Where do I start?",
            "My grocery spending has crept up. Any tips?",
            "How do I plan for a big expense in {month}?",
            "Is it better to pay off small debts first or big ones?",
        ),
        (
            "Track spending for one month without changing anything; the numbers usually surprise people.",
            "Automating a small transfer on payday makes saving the default.",
            "Plan meals for the week and shop with a list.",
            "Divide the big expense by the months left and set that aside each month.",
            "Paying off small debts first gives quick wins; the largest interest rate first saves the most.",
            "Cancelling one unused subscription is an easy start.",
            "Keep a small buffer for irregular costs so they don't derail the plan.",
            "Review the plan every {num_2_4} months and adjust.",
        ),
        (
            "How big should an emergency fund be?",
            "What about treating myself?",
            "Are cash envelopes a good idea?",
            "How do I talk about money with {friend}?",
        ),
        (
            "A few months of essential costs is a common target; start with one.",
            "Budget a small treat amount on purpose so you don't feel deprived.",
            "Envelopes work well for categories where card spending gets away from you.",
            "Pick a calm moment and talk about goals before numbers.",
            "Cooking {dish} in a big batch is cheaper than buying lunch every day.",
            "Celebrate milestones; saving is a long game.",
        ),
    ),
    _Topic(
        "sleep",
        (
            "I keep waking up at 3 a.m. and can't fall back asleep. Any advice?",
            "How much sleep do I really need? I'm always {feeling}.",
            "Is it bad to look at my phone in bed?",
            "What's a good evening routine to wind down after a long {weekday}?",
        ),
        (
            "A steady wake-up time, even at weekends, anchors the whole rhythm.",
            "Most adults do best somewhere between seven and nine hours.",
            "Bright screens late at night make it harder to feel sleepy.",
            "If you're awake for more than twenty minutes, get up and do something dull in dim light.",
            "Caffeine after lunch can still affect you at bedtime.",
            "A cool, dark, quiet bedroom helps more than most gadgets.",
            "Writing tomorrow's worries on paper can stop them circling in your head.",
            "A short walk in daylight in the morning helps the body clock.",
        ),
        (
            "Do naps help or hurt?",
            "What about a glass of wine before bed?",
            "Should I try a sleep tracker?",
            "How long until a new routine works?",
        ),
        (
            "A nap under half an hour, before mid-afternoon, usually helps more than it hurts.",
            "Alcohol makes you drowsy but tends to make the second half of the night worse.",
            "Trackers can be interesting, but don't let the numbers make you anxious.",
            "Give a new routine about two weeks before judging it.",
            "Keeping the same routine on {weekday} as on other days makes a big difference.",
            "Herbal tea can be a nice signal to your body that the day is ending.",
        ),
    ),
    _Topic(
        "gifts",
        (
            "{friend}'s birthday is in {month} and I have no idea what to get. Help?",
            "What's a thoughtful gift under a small budget?",
            "I want to give {friend} something handmade. Ideas?",
            "How do I choose a gift for someone who has everything?",
        ),
        (
            "Think about what they talk about most; the best gifts feel like you were listening.",
            "Experiences, like a class or a day out, are often remembered longer than objects.",
            "Something for their hobby, say {hobby}, is a safe and personal choice.",
            "A handwritten note makes even a small gift feel special.",
            "Consumables -- good coffee, chocolate, a plant -- never end up cluttering a shelf.",
            "If in doubt, a book you loved with a note about why is lovely.",
            "Homemade {dish} in a nice jar or tin is a classic.",
            "Planning ahead avoids the panic purchase the day before.",
        ),
        (
            "Is a gift card too impersonal?",
            "How do I wrap it nicely without much effort?",
            "Should I ask what they want?",
            "What if they don't like it?",
        ),
        (
            "A gift card for a place they love is fine, especially with a personal message.",
            "Brown paper and a bit of string look great and take no skill.",
            "Asking is practical; surprising is fun. It depends on the person.",
            "Include a gift receipt, and don't take it personally.",
            "Group gifts with friends let you get something bigger.",
            "The thought really does count more than the price.",
        ),
    ),
    _Topic(
        "spreadsheets",
        (
            "How do I sum a column only where another column says a certain word?",
            "My spreadsheet formulas break every time I add a row. Why?",
            "What's the easiest way to remove duplicates in a spreadsheet?",
            "How can I make a simple chart of monthly spending?",
        ),
        (
            "A conditional sum function handles that: a range to test, the criterion, and a range to add.",
            "Formulas break when ranges are fixed; turning the data into a table makes them grow automatically.",
            "Most spreadsheet tools have a built-in remove-duplicates option under the data menu.",
            "Put months in one column and totals in the next, select both, and insert a column chart.",
            "Freeze the header row so you always know what a column means.",
            "Keep raw data on one sheet and calculations on another.",
            "Dates stored as text are a common source of strange results.",
            "Name your important ranges; formulas become far easier to read.",
        ),
        (
            "What about absolute versus relative references?",
            "How do I share it without people breaking it?",
            "Can it update automatically each month?",
            "Is a pivot table worth learning?",
        ),
        (
            "Absolute references stay fixed when copied; relative ones shift with the cell.",
            "Protect the formula cells and leave only the input cells editable.",
            "If the data arrives in the same shape each month, a template with formulas does most of the work.",
            "Pivot tables are absolutely worth an afternoon; they answer most summary questions.",
            "Colour input cells lightly so people know where to type.",
            "Keep a short notes tab explaining what each sheet does.",
        ),
    ),
    _Topic(
        "shell",
        (
            "How do I find all files bigger than a certain size in a folder?",
            "Can you explain how to write a regex that matches a date?",
            "What's a safe way to rename lots of files at once?",
            "My {prog} job runs fine by hand but not from a scheduled task. Why?",
        ),
        (
            "The find command with a size filter lists large files quickly.",
            "For dates, anchor the pattern and match four digits, a separator, two digits, a separator and two digits.",
            "Do a dry run that only prints the new names before renaming anything.",
            "Scheduled jobs often run with a different working directory and a minimal PATH.",
            "Quote your variables in shell scripts; spaces in file names are a common trap.",
            "Test the regex on a handful of tricky examples, including ones that should not match.",
            "Log the job's output to a file so you can see what happened.",
            "Use absolute paths in anything that runs unattended.",
        ),
        (
            "How do I sort the results by size?",
            "Should regex check if the date is valid too?",
            "What if a new name already exists?",
            "How do I get notified when the job fails?",
        ),
        (
            "Pipe the listing into a sort on the size column, largest first.",
            "Regex checks the shape; validating the actual calendar date is better done in code.",
            "Make the rename refuse to overwrite, then handle conflicts by hand.",
            "Have the job exit with an error code and send the log somewhere you read.",
            "Keep a copy of the folder before any bulk change.",
            "Short scripts with comments age much better than clever one-liners.",
        ),
    ),
    _Topic(
        "career",
        (
            "I have a job interview on {weekday}. How should I prepare?",
            "How do I ask for more responsibility at work?",
            "I'm thinking about switching careers. Where do I start?",
            "How do I give feedback to a colleague without it being awkward?",
        ),
        (
            "Prepare three short stories about problems you solved; most questions can use one of them.",
            "Research the team and think about what they need, not just what you want.",
            "Ask for a specific project rather than more responsibility in general.",
            "Talk to a few people already in the field before making big decisions.",
            "Feedback lands better when it's specific, timely and about the work, not the person.",
            "Prepare a couple of questions of your own for the end of the interview.",
            "Write down your achievements each month; they're easy to forget.",
            "A small side project can test a new direction without big risks.",
        ),
        (
            "What should I wear?",
            "How do I answer the salary question?",
            "What if my manager says no?",
            "How do I handle nerves?",
        ),
        (
            "Dress one step more formal than the team's everyday style.",
            "Give a researched range and say you're flexible for the right role.",
            "Ask what you'd need to show to be ready, and agree on a time to revisit.",
            "Slow breathing and arriving early calm most nerves.",
            "Practising answers out loud with {friend} helps a lot.",
            "Send a short thank-you note afterwards; it's rarely wasted.",
        ),
    ),
)

# A user sometimes adds a line of personal context before asking: composed from independent parts,
# so these lines rarely repeat exactly.
_ANECDOTE_WHEN = (
    "Last {weekday}",
    "Over the weekend",
    "Yesterday evening",
    "Earlier this week",
    "This morning",
    "A couple of days ago",
)
_ANECDOTE_WHAT = (
    "{friend} and I went for a long walk",
    "I spent hours tidying the {room}",
    "I finally tried {hobby}",
    "I made {dish} for the first time",
    "I caught up with {friend} over coffee",
    "I read half of a {genre} book in one sitting",
    "we had a {game} evening at {friend}'s",
    "I went to a concert with {friend}",
    "I started {chore}",
    "I fixed {bug} at work",
    "I practised the {instrument} for an hour",
    "I rearranged the {room}",
)
_ANECDOTE_HOW = (
    "and it went better than expected.",
    "and now I'm curious about something.",
    "which got me thinking.",
    "and I'm still a bit {feeling}.",
    "and the weather was {weather} the whole time.",
    "so this has been on my mind.",
    "and {friend} suggested I ask you.",
)


class _Slots(dict):
    """Template slots drawn lazily from the pools, the same value for a name within a session."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> str:
        if key.startswith("num_"):
            low, high = (int(x) for x in key[4:].split("_"))
            value = str(self.rng.randint(low, high))
        else:
            pool = _POOLS[key.rstrip("0123456789")]
            taken = set(self.values())
            choices = [v for v in pool if v not in taken] or list(pool)  # "dish2" differs from "dish"
            value = self.rng.choice(choices)
        self[key] = value
        return value


def _fill(template: str, slots: _Slots) -> str:
    return template.format_map(slots)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _topic_turns(rng: random.Random, topic: _Topic, slots: _Slots, *, drift: bool) -> list[dict[str, str]]:
    opener = _fill(rng.choice(topic.openers), slots)
    if rng.random() < 0.4:
        when, what, how = rng.choice(_ANECDOTE_WHEN), rng.choice(_ANECDOTE_WHAT), rng.choice(_ANECDOTE_HOW)
        opener = _fill(f"{when} {what}, {how} ", slots) + opener
    if drift:
        opener = f"{rng.choice(_DRIFT)} {opener}"
    reply = rng.choice(_LEADS) + " ".join(
        _fill(s, slots) for s in rng.sample(topic.replies, rng.randint(4, 6))
    )
    turns = [{"role": "user", "content": opener}, {"role": "assistant", "content": reply}]
    n = len(topic.followups)
    extras = list(topic.details[n:])
    rng.shuffle(extras)
    for i in rng.sample(range(n), rng.randint(2, n)):
        answer = [_fill(topic.details[i], slots)]
        if extras and rng.random() < 0.6:
            answer.append(_fill(extras.pop(), slots))
        if rng.random() < 0.4:
            answer.append(_fill(rng.choice(_CODAS), slots))
        turns += [
            {"role": "user", "content": rng.choice(_REACTIONS) + _fill(topic.followups[i], slots)},
            {
                "role": "assistant",
                "content": rng.choice(_ANSWER_LEADS) + " ".join(_capitalise(a) for a in answer),
            },
        ]
    return turns


def filler_conversation(rng: random.Random) -> list[dict[str, str]]:
    """One filler session's conversation: one topic, sometimes drifting into a second or third.

    Args:
        rng: Random generator (consumed).

    Returns:
        Turns as ``{"role", "content"}`` dicts, alternating user/assistant, starting with the user.
    """
    slots = _Slots(rng)
    first, second, third = rng.sample(_TOPICS, 3)
    turns = _topic_turns(rng, first, slots, drift=False)
    # Sessions of several hundred tokens keep the session count (one ingest call each for LLM-based
    # systems) moderate: ~70 sessions for 32K tokens.
    if rng.random() < 0.8:
        turns += _topic_turns(rng, second, slots, drift=True)
        if rng.random() < 0.45:
            turns += _topic_turns(rng, third, slots, drift=True)
    if rng.random() < 0.5:
        user, assistant = rng.choice(_CLOSERS)
        turns += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return turns


def conversation_tokens(conversation: list[dict[str, str]]) -> int:
    """cl100k tokens of a conversation: the sum over turns of their content (roles not counted).

    Args:
        conversation: Turns as ``{"role", "content"}`` dicts.

    Returns:
        The token count.
    """
    return sum(count_tokens(turn["content"]) for turn in conversation)


def filler_sessions(rng: random.Random, budget_tokens: int) -> list[tuple[list[dict[str, str]], int]]:
    """Filler conversations whose token total lands as close to ``budget_tokens`` as one turn pair allows.

    Sessions are added until the total reaches the budget; then trailing turn pairs of the last
    session are dropped while that brings the total closer (never below one exchange). The result is
    within about one turn pair (a few hundred tokens) of the budget.

    Args:
        rng: Random generator (consumed).
        budget_tokens: Target cl100k tokens over all filler turns; 0 gives no sessions.

    Returns:
        ``[(conversation, tokens), ...]`` in order.
    """
    sessions: list[tuple[list[dict[str, str]], int]] = []
    total = 0
    while total < budget_tokens:
        conversation = filler_conversation(rng)
        tokens = [count_tokens(turn["content"]) for turn in conversation]
        crosses = total + sum(tokens) >= budget_tokens
        if crosses:
            # Trim the session that crosses the budget, a turn pair at a time, while that gets closer.
            while len(conversation) > 2 and abs(total + sum(tokens[:-2]) - budget_tokens) < abs(
                total + sum(tokens) - budget_tokens
            ):
                conversation, tokens = conversation[:-2], tokens[:-2]
        sessions.append((conversation, sum(tokens)))
        total += sum(tokens)
        if crosses:
            break
    return sessions
